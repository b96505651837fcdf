// A complex dense literal with a nonzero imaginary part (an IR constant
// holds real numbers, docs/mlir.md) is read as `complex` of two real
// constants, its real and imaginary parts.
func.func @main(%arg0: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  %c = stablehlo.constant dense<[(1.0,2.0), (3.0,4.0)]> : tensor<2xcomplex<f32>>
  %0 = stablehlo.add %arg0, %c : tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}
