sdy.mesh @m = <["a"=2]>

func.func @max_pool_grad(%x: tensor<8x12xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}, %g: tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) -> (tensor<8x12xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) {
  %init = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = "stablehlo.select_and_scatter"(%x, %g, %init) <{window_dimensions = array<i64: 1, 2>, window_strides = array<i64: 1, 2>}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %c = stablehlo.compare GT, %p, %q : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %d = "stablehlo.convert"(%c) : (tensor<i1>) -> tensor<i1>
    %e = stablehlo.convert %d : (tensor<i1>) -> tensor<i1>
    stablehlo.return %e : tensor<i1>
  }, {
  ^bb0(%s: tensor<f32>, %t: tensor<f32>):
    %sum = stablehlo.add %s, %t : tensor<f32>
    stablehlo.return %sum : tensor<f32>
  }) {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>]>} : (tensor<8x12xf32>, tensor<8x6xf32>, tensor<f32>) -> tensor<8x12xf32>
  return %0 : tensor<8x12xf32>
}
