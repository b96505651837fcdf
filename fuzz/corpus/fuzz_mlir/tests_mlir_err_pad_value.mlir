func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<f32>) -> tensor<6xf32> {
  %0 = stablehlo.pad %arg0, %arg1, low = [1], high = [1], interior = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
