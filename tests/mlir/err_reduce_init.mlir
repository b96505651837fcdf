// A reduce's init must be a scalar constant, the identity of its body.
func.func @main(%arg0: tensor<4x8xf32>, %arg1: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
