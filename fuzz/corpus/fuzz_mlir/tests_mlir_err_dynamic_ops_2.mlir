func.func @static_result(%arg0: tensor<8x4xf32>, %arg1: tensor<*xf32>) -> tensor<8x4xf32> {
  %0 = stablehlo.convert %arg1 : (tensor<*xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
