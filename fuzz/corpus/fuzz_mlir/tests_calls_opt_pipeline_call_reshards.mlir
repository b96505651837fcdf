sdy.mesh @m = <["a"=2, "b"=2]>
func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) -> tensor<8x4xf32> {
  %0 = call @f(%arg0) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %1 = sdy.sharding_constraint %0 <@m, [{"b"}, {}]> : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}
func.func private @f(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8x4xf32>
  %1 = sdy.sharding_constraint %0 <@m, [{"a"}, {}]> : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}
