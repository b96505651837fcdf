// JAX's newer trsm lowering puts its own sdy.sharding_rule on the call
// (unbatched in its test data: every dim a factor of its own; here a
// shared batch factor, each other dim its own); shardc drops it for its rule of the
// lapack op: batch dims pass through, the rest needs replication
// (docs/mlir.md). The line is JAX's form (export back-compat test data,
// cpu_triangular_solve_blas_trsm.py) with a batch dim added.
func.func @main(%a: tensor<2x4x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x4x5xf32> {
  %0 = stablehlo.custom_call @lapack_strsm_ffi(%a, %b) {mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k], [i, l, m])->([i, n, o]) {i=2, j=4, k=4, l=4, m=5, n=4, o=5}, custom>} : (tensor<2x4x4xf32>, tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}
