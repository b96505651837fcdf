// stablehlo.cholesky (custom form, as Shardy's registry test writes it),
// triangular_solve (generic form, the transpose_a enum), batch_norm_*:
// read into the .shir ops of those names, attributes by name, defaults
// left unwritten (unit_diagonal = false, transpose_a = NO_TRANSPOSE).
func.func @cholesky(%arg0: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %0 = stablehlo.cholesky %arg0, lower = true : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  return %0 :  tensor<2x4x8x8xf32>
}
func.func @triangular_solve(%arg0: tensor<8x3x3xf32>, %arg1: tensor<8x3x5xf32>) -> (tensor<8x3x5xf32>, tensor<8x3x5xf32>) {
  %0 = "stablehlo.triangular_solve"(%arg0, %arg1) {
    left_side = true,
    lower = true,
    unit_diagonal = false,
    transpose_a = #stablehlo<transpose NO_TRANSPOSE>
  } : (tensor<8x3x3xf32>, tensor<8x3x5xf32>) -> tensor<8x3x5xf32>
  %1 = "stablehlo.triangular_solve"(%arg0, %arg1) {left_side = true, lower = false, unit_diagonal = true, transpose_a = #stablehlo<transpose ADJOINT>} : (tensor<8x3x3xf32>, tensor<8x3x5xf32>) -> tensor<8x3x5xf32>
  return %0, %1 : tensor<8x3x5xf32>, tensor<8x3x5xf32>
}
func.func @batch_norm(%x: tensor<4x8x6xf32>, %s: tensor<8xf32>, %o: tensor<8xf32>) -> (tensor<4x8x6xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4x8x6xf32>, tensor<4x8x6xf32>) {
  %y, %m, %v = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.000000e-05 : f32, feature_index = 1 : i64} : (tensor<4x8x6xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8x6xf32>, tensor<8xf32>, tensor<8xf32>)
  %z = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 0.001 : f32, feature_index = 1 : i64} : (tensor<4x8x6xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8x6xf32>
  %dx, %ds, %db = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %z) {epsilon = 0.001 : f32, feature_index = 1 : i64} : (tensor<4x8x6xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4x8x6xf32>) -> (tensor<4x8x6xf32>, tensor<8xf32>, tensor<8xf32>)
  return %y, %m, %v, %z, %dx : tensor<4x8x6xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4x8x6xf32>, tensor<4x8x6xf32>
}
