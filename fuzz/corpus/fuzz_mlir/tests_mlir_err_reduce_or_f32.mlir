func.func @main(%a: tensor<4x2xf32>) -> tensor<4xf32> {
  %f = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%a init: %f) applies stablehlo.or across dimensions = [1] : (tensor<4x2xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
