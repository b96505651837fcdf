// A pad's padding value that is not a constant stays an operand (a
// constant one folds into `value`), and negative padding crops.
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<f32>) -> (tensor<6xf32>, tensor<3xf32>) {
  %0 = stablehlo.pad %arg0, %arg1, low = [1], high = [1], interior = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<6xf32>
  %cst = stablehlo.constant dense<2.0> : tensor<f32>
  %1 = stablehlo.pad %arg0, %cst, low = [-2], high = [1], interior = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<3xf32>
  return %0, %1 : tensor<6xf32>, tensor<3xf32>
}
