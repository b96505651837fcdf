sdy.mesh @m = <["a"=2]>

func.func @window_dim_split(%x: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}, %i: tensor<2x1xi64>, %u: tensor<2xf32>) -> (tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) {
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %s = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>, sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>]>} : (tensor<4x6xf32>, tensor<2x1xi64>, tensor<2xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}
