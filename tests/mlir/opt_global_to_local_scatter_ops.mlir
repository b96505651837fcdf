sdy.mesh @m = <["a"=2, "b"=2]>

func.func @updates_split_by_a(%x: tensor<4x3xf32>, %i: tensor<6x1xi64> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}, %u: tensor<6x3xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) -> tensor<4x3xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %s = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x3xf32>, tensor<6x1xi64>, tensor<6x3xf32>) -> tensor<4x3xf32>
  %1 = sdy.all_reduce {"a"} %0 out_sharding=<@m, [{}, {}]> : tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}

func.func @table_split_by_b(%x: tensor<8xi32> {sdy.sharding = #sdy.sharding<@m, [{"b"}]>}, %i: tensor<3x1xi64>, %u: tensor<3xi32>) -> (tensor<8xi32> {sdy.sharding = #sdy.sharding<@m, [{"b"}]>}) {
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%p: tensor<i32>, %q: tensor<i32>):
    %s = stablehlo.maximum %p, %q : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, sdy.sharding = #sdy.sharding_per_value<[<@m, [{"b"}]>]>} : (tensor<8xi32>, tensor<3x1xi64>, tensor<3xi32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

func.func @max_of_split_updates(%x: tensor<4xi32>, %i: tensor<2x1xi64> {sdy.sharding = #sdy.sharding<@m, [{"b"}, {}]>}, %u: tensor<2xi32> {sdy.sharding = #sdy.sharding<@m, [{"b"}]>}) -> tensor<4xi32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%p: tensor<i32>, %q: tensor<i32>):
    %s = stablehlo.maximum %p, %q : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4xi32>, tensor<2x1xi64>, tensor<2xi32>) -> tensor<4xi32>
  %1 = sdy.all_reduce max {"b"} %0 out_sharding=<@m, [{}]> : tensor<4xi32>
  return %1 : tensor<4xi32>
}
