// Read as .shir (tests/fft/stablehlo_complex_constant_run.test runs it).
// Complex constants in MLIR's (re,im) form, a splat and a list, read as
// .shir constants (real parts, imaginary parts 0) and run: 1.5 + (2+0j)
// = 3.5, 1.5 + (-1+0j) = 0.5.
func.func @main() -> tensor<2xcomplex<f32>> {
  %a = stablehlo.constant dense<(1.5,0.0)> : tensor<2xcomplex<f32>>
  %b = stablehlo.constant dense<[(2.0,0.0), (-1.0,0.0)]> : tensor<2xcomplex<f32>>
  %0 = stablehlo.add %a, %b : tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}
