// Solve A·X = B through the Cholesky factor, as JAX exports
// jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(a, lower=True), b)
// for CPU, on a batch of 8 systems sharded over "batch"=4: the factor is
// JAX's stablehlo.custom_call @lapack_spotrf_ffi (uplo 'L' = 76, NaN where
// LAPACK's info says A is not positive definite), the two solves its
// @lapack_strsm_ffi (side 'L', lower, trans_x 'N' then 'T', diag 'N'), with
// column-major layouts and the batch dim outermost, as JAX's lowering
// prints them. A = G·Gᵀ + 4·I is positive definite for any G in [-1, 1).
// The batch dim passes through every op; the matrix dims are whole on each
// device, so the program runs without communication.
module @jit_cho_solve attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["batch"=4]>
  func.func public @main(%g: tensor<8x4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"batch"}, {}, {}]>}, %b: tensor<8x4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"batch"}, {}, {}]>}) -> (tensor<8x4x2xf32> {jax.result_info = ""}) {
    %0 = stablehlo.dot_general %g, %g, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<8x4x4xf32>, tensor<8x4x4xf32>) -> tensor<8x4x4xf32>
    %1 = stablehlo.iota dim = 1 : tensor<8x4x4xi32>
    %2 = stablehlo.iota dim = 2 : tensor<8x4x4xi32>
    %3 = stablehlo.compare  EQ, %1, %2,  SIGNED : (tensor<8x4x4xi32>, tensor<8x4x4xi32>) -> tensor<8x4x4xi1>
    %cst = stablehlo.constant dense<4.000000e+00> : tensor<8x4x4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<8x4x4xf32>
    %4 = stablehlo.select %3, %cst, %cst_0 : tensor<8x4x4xi1>, tensor<8x4x4xf32>
    %a = stablehlo.add %0, %4 : tensor<8x4x4xf32>
    %5:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]} : (tensor<8x4x4xf32>) -> (tensor<8x4x4xf32>, tensor<8xi32>)
    %c = stablehlo.constant dense<0> : tensor<8xi32>
    %6 = stablehlo.compare  EQ, %5#1, %c,  SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<8xi1>) -> tensor<8x4x4xi1>
    %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<8x4x4xf32>
    %l = stablehlo.select %7, %5#0, %cst_1 : tensor<8x4x4xi1>, tensor<8x4x4xf32>
    %y = stablehlo.custom_call @lapack_strsm_ffi(%l, %b) {mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]} : (tensor<8x4x4xf32>, tensor<8x4x2xf32>) -> tensor<8x4x2xf32>
    %x = stablehlo.custom_call @lapack_strsm_ffi(%l, %y) {mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]} : (tensor<8x4x4xf32>, tensor<8x4x2xf32>) -> tensor<8x4x2xf32>
    return %x : tensor<8x4x2xf32>
  }
}
