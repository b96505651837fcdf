// An op shardc does not support is named at its location.
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<i32>) -> tensor<4xf32> {
  %0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg1) : tensor<4xf32>, tensor<i32>
   cond {
    %c = stablehlo.constant dense<4> : tensor<i32>
    %1 = stablehlo.compare LT, %iterArg_0, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    stablehlo.return %iterArg, %iterArg_0 : tensor<4xf32>, tensor<i32>
  }
  return %0#0 : tensor<4xf32>
}
