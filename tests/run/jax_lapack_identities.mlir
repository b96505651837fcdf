// JAX's CPU linear-algebra custom_calls on a batch of 6 matrices sharded
// over "x"=4 (uneven: padded to 2 a device), checked by identities:
// @main returns Q·R (geqrf, then orgqr on its output, R its upper
// triangle), V·diag(w)·Vᵀ (syevd of S = A + Aᵀ), U·diag(s)·Vt (gesdd,
// mode 'A') and getrf's LU and pivots; @identities returns what they
// must equal: A, S, A, and getrf run on one device (the pivots exactly).
// The custom_call lines are in the form JAX's CPU lowering prints (its
// export back-compat test data: cpu_qr_lapack_geqrf.py,
// cpu_eigh_lapack_syev.py, cpu_svd_lapack_gesdd.py, cpu_lu_lapack_getrf.py),
// with a batch dim (layouts [1, 2, 0]).
module @jit_identities {
  sdy.mesh @m = <["x"=4]>
  func.func public @main(%a: tensor<6x4x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}, {}]>}) -> (tensor<6x4x4xf32>, tensor<6x4x4xf32>, tensor<6x4x4xf32>, tensor<6x4x4xf32>, tensor<6x4xi32>) {
    %qr:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%a) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>]} : (tensor<6x4x4xf32>) -> (tensor<6x4x4xf32>, tensor<6x4xf32>)
    %q = stablehlo.custom_call @lapack_sorgqr_ffi(%qr#0, %qr#1) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]} : (tensor<6x4x4xf32>, tensor<6x4xf32>) -> tensor<6x4x4xf32>
    %row = stablehlo.iota dim = 1 : tensor<6x4x4xi32>
    %col = stablehlo.iota dim = 2 : tensor<6x4x4xi32>
    %upper = stablehlo.compare  LE, %row, %col,  SIGNED : (tensor<6x4x4xi32>, tensor<6x4x4xi32>) -> tensor<6x4x4xi1>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<6x4x4xf32>
    %r = stablehlo.select %upper, %qr#0, %zero : tensor<6x4x4xi1>, tensor<6x4x4xf32>
    %qtimesr = stablehlo.dot_general %q, %r, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<6x4x4xf32>, tensor<6x4x4xf32>) -> tensor<6x4x4xf32>
    %at = stablehlo.transpose %a, dims = [0, 2, 1] : (tensor<6x4x4xf32>) -> tensor<6x4x4xf32>
    %s = stablehlo.add %a, %at : tensor<6x4x4xf32>
    %eig:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%s) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<6x4x4xf32>) -> (tensor<6x4x4xf32>, tensor<6x4xf32>, tensor<6xi32>)
    %w = stablehlo.broadcast_in_dim %eig#1, dims = [0, 2] : (tensor<6x4xf32>) -> tensor<6x4x4xf32>
    %vw = stablehlo.multiply %eig#0, %w : tensor<6x4x4xf32>
    %vwvt = stablehlo.dot_general %vw, %eig#0, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<6x4x4xf32>, tensor<6x4x4xf32>) -> tensor<6x4x4xf32>
    %svd:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]} : (tensor<6x4x4xf32>) -> (tensor<6x4x4xf32>, tensor<6x4xf32>, tensor<6x4x4xf32>, tensor<6x4x4xf32>, tensor<6xi32>)
    %sv = stablehlo.broadcast_in_dim %svd#1, dims = [0, 2] : (tensor<6x4xf32>) -> tensor<6x4x4xf32>
    %us = stablehlo.multiply %svd#2, %sv : tensor<6x4x4xf32>
    %usvt = stablehlo.dot_general %us, %svd#3, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<6x4x4xf32>, tensor<6x4x4xf32>) -> tensor<6x4x4xf32>
    %lu:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {mhlo.backend_config = {}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<6x4x4xf32>) -> (tensor<6x4x4xf32>, tensor<6x4xi32>, tensor<6xi32>)
    return %qtimesr, %vwvt, %usvt, %lu#0, %lu#1 : tensor<6x4x4xf32>, tensor<6x4x4xf32>, tensor<6x4x4xf32>, tensor<6x4x4xf32>, tensor<6x4xi32>
  }
  func.func public @identities(%a: tensor<6x4x4xf32>) -> (tensor<6x4x4xf32>, tensor<6x4x4xf32>, tensor<6x4x4xf32>, tensor<6x4x4xf32>, tensor<6x4xi32>) {
    %at = stablehlo.transpose %a, dims = [0, 2, 1] : (tensor<6x4x4xf32>) -> tensor<6x4x4xf32>
    %s = stablehlo.add %a, %at : tensor<6x4x4xf32>
    %lu:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {mhlo.backend_config = {}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<6x4x4xf32>) -> (tensor<6x4x4xf32>, tensor<6x4xi32>, tensor<6xi32>)
    return %a, %s, %a, %lu#0, %lu#1 : tensor<6x4x4xf32>, tensor<6x4x4xf32>, tensor<6x4x4xf32>, tensor<6x4x4xf32>, tensor<6x4xi32>
  }
}
