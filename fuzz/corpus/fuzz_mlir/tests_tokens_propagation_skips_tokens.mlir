sdy.mesh @m = <["x"=2]>

func.func @main(%arg0: !stablehlo.token, %arg1: tensor<8xf32>) -> (!stablehlo.token, tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) {
  %0 = stablehlo.after_all %arg0 : !stablehlo.token
  %1 = stablehlo.negate %arg1 : tensor<8xf32>
  return %0, %1 : !stablehlo.token, tensor<8xf32>
}
