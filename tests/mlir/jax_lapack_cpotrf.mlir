// jnp.linalg.cholesky of a complex64 matrix on CPU as JAX exports it (the
// structure and the custom_call line of JAX's export back-compat test
// data, cpu_cholesky_lapack_potrf.py, c64 case, written out here):
// Hermitize ((x + xᴴ) / 2), @lapack_cpotrf_ffi with uplo = 'L' (76) and
// column-major layouts, NaN where info != 0, then the lower triangle.
module @jit_cholesky attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xcomplex<f32>> loc("x")) -> (tensor<4x4xcomplex<f32>> {jax.result_info = ""}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %1 = stablehlo.real %0 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %2 = stablehlo.imag %0 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %3 = stablehlo.negate %2 : tensor<4x4xf32>
    %4 = stablehlo.complex %1, %3 : tensor<4x4xcomplex<f32>>
    %5 = stablehlo.add %arg0, %4 : tensor<4x4xcomplex<f32>>
    %cst = stablehlo.constant dense<(2.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
    %7 = stablehlo.divide %5, %6 : tensor<4x4xcomplex<f32>>
    %8:2 = stablehlo.custom_call @lapack_cpotrf_ffi(%7) {mhlo.backend_config = {uplo = 76 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.compare  EQ, %8#1, %c,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<4x4xi1>
    %cst_2 = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %11 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
    %12 = stablehlo.select %10, %8#0, %11 : tensor<4x4xi1>, tensor<4x4xcomplex<f32>>
    %13 = call @tril(%12) : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    return %13 : tensor<4x4xcomplex<f32>>
  }
  func.func private @tril(%arg0: tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>> {
    %0 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %1 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %2 = stablehlo.compare  GE, %0, %1,  SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %cst = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
    %4 = stablehlo.select %2, %arg0, %3 : tensor<4x4xi1>, tensor<4x4xcomplex<f32>>
    return %4 : tensor<4x4xcomplex<f32>>
  }
}
