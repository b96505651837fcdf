func.func @unranked_literal() -> tensor<*xcomplex<f32>> {
  %0 = stablehlo.constant dense<(1.0, 0.5)> : tensor<*xcomplex<f32>>
  return %0 : tensor<*xcomplex<f32>>
}
