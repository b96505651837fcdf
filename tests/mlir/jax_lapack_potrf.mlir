// jnp.linalg.cholesky on CPU as JAX exports it (the structure and the
// custom_call line of JAX's export back-compat test data,
// cpu_cholesky_lapack_potrf.py, f64 case, written out here): symmetrize,
// @lapack_dpotrf_ffi with uplo = 'L' (76) and column-major layouts, NaN
// where info != 0, then the lower triangle. Location aliases before the
// module, as JAX prints them.
#loc1 = loc("x")
module @jit_cholesky attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xf64> loc("x")) -> (tensor<4x4xf64> {jax.result_info = ""}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x4xf64>) -> tensor<4x4xf64>
    %1 = stablehlo.add %arg0, %0 : tensor<4x4xf64>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<4x4xf64>
    %3 = stablehlo.divide %1, %2 : tensor<4x4xf64>
    %4:2 = stablehlo.custom_call @lapack_dpotrf_ffi(%3) {mhlo.backend_config = {uplo = 76 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.compare  EQ, %4#1, %c,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<i1>) -> tensor<4x4xi1>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<4x4xf64>
    %8 = stablehlo.select %6, %4#0, %7 : tensor<4x4xi1>, tensor<4x4xf64>
    %9 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %10 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %11 = stablehlo.compare  GE, %9, %10,  SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<4x4xf64>
    %13 = stablehlo.select %11, %8, %12 : tensor<4x4xi1>, tensor<4x4xf64>
    return %13 : tensor<4x4xf64>
  }
}
