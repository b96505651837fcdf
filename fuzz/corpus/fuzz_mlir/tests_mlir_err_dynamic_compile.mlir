sdy.mesh @mesh = <["x"=2]>

func.func @main(%arg0: tensor<8x8xf32>, %arg1: tensor<?x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
