// A complex literal with a nonzero imaginary part reads only as a
// stablehlo.constant's value (as complex of two real constants); where
// the importer reads the literal itself, as a pad's padding value, it is
// a located error (shardc's attribute values hold real numbers).
func.func @main(%arg0: tensor<2xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %c = stablehlo.constant dense<(1.0,2.0)> : tensor<complex<f32>>
  %0 = stablehlo.pad %arg0, %c, low = [1], high = [1], interior = [0] : (tensor<2xcomplex<f32>>, tensor<complex<f32>>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}
