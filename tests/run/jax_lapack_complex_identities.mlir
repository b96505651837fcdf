// JAX's CPU linear-algebra custom_calls on complex64 matrices
// (lapack_c*_ffi), a batch of 6 sharded over "x"=4 (uneven: padded to 2 a
// device), checked by identities: @main returns L·Lᴴ (cpotrf of
// H = A·Aᴴ + I, its lower triangle), Q·R (cgeqrf, then cungqr on its
// output), V·diag(w)·Vᴴ (cheevd of S = A + Aᴴ, real eigenvalues),
// U·diag(s)·Vt (cgesdd mode 'A', real singular values), L·X and Lᴴ·Y
// (ctrsm side 'L' with trans_x 'N' and 'C', on L from cpotrf) and
// cgetrf's LU and pivots; @identities returns what they must equal: H, A,
// S, A, B, B, and cgetrf run on one device. The custom_call lines take
// the form of JAX's CPU lowering (its export back-compat test data: the
// c64 cases of cpu_cholesky_lapack_potrf.py, cpu_qr_lapack_geqrf.py,
// cpu_eigh_lapack_syev.py, cpu_svd_lapack_gesdd.py,
// cpu_triangular_solve_blas_trsm.py, cpu_lu_lapack_getrf.py) with a
// batch dim (layouts [1, 2, 0]). shardc has no complex dot_general, so
// @cmm multiplies through real and imaginary parts, @ch is the conjugate
// transpose.
module @jit_complex_identities {
  sdy.mesh @m = <["x"=4]>
  func.func public @main(%a: tensor<6x4x4xcomplex<f32>> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}, {}]>}, %b: tensor<6x4x4xcomplex<f32>> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}, {}]>}) -> (tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4xi32>) {
    %ah = call @ch(%a) : (tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %aah = call @cmm(%a, %ah) : (tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %eye = call @eye() : () -> tensor<6x4x4xcomplex<f32>>
    %h = stablehlo.add %aah, %eye : tensor<6x4x4xcomplex<f32>>
    %chol:2 = stablehlo.custom_call @lapack_cpotrf_ffi(%h) {mhlo.backend_config = {uplo = 76 : ui8}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]} : (tensor<6x4x4xcomplex<f32>>) -> (tensor<6x4x4xcomplex<f32>>, tensor<6xi32>)
    %l = call @tril(%chol#0) : (tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %lh = call @ch(%l) : (tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %llh = call @cmm(%l, %lh) : (tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %qr:2 = stablehlo.custom_call @lapack_cgeqrf_ffi(%a) {mhlo.backend_config = {}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>]} : (tensor<6x4x4xcomplex<f32>>) -> (tensor<6x4x4xcomplex<f32>>, tensor<6x4xcomplex<f32>>)
    %q = stablehlo.custom_call @lapack_cungqr_ffi(%qr#0, %qr#1) {mhlo.backend_config = {}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]} : (tensor<6x4x4xcomplex<f32>>, tensor<6x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %rt = call @triu(%qr#0) : (tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %qtimesr = call @cmm(%q, %rt) : (tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %s = stablehlo.add %a, %ah : tensor<6x4x4xcomplex<f32>>
    %eig:3 = stablehlo.custom_call @lapack_cheevd_ffi(%s) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<6x4x4xcomplex<f32>>) -> (tensor<6x4x4xcomplex<f32>>, tensor<6x4xf32>, tensor<6xi32>)
    %w = call @cdiag(%eig#1) : (tensor<6x4xf32>) -> tensor<6x4x4xcomplex<f32>>
    %vw = call @cmm(%eig#0, %w) : (tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %vh = call @ch(%eig#0) : (tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %vwvh = call @cmm(%vw, %vh) : (tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %svd:5 = stablehlo.custom_call @lapack_cgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]} : (tensor<6x4x4xcomplex<f32>>) -> (tensor<6x4x4xcomplex<f32>>, tensor<6x4xf32>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6xi32>)
    %sd = call @cdiag(%svd#1) : (tensor<6x4xf32>) -> tensor<6x4x4xcomplex<f32>>
    %us = call @cmm(%svd#2, %sd) : (tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %usvt = call @cmm(%us, %svd#3) : (tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %x = stablehlo.custom_call @lapack_ctrsm_ffi(%l, %b) {mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]} : (tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %lx = call @cmm(%l, %x) : (tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %y = stablehlo.custom_call @lapack_ctrsm_ffi(%l, %b) {mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 67 : ui8, uplo = 76 : ui8}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]} : (tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %lhy = call @cmm(%lh, %y) : (tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %lu:3 = stablehlo.custom_call @lapack_cgetrf_ffi(%a) {mhlo.backend_config = {}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<6x4x4xcomplex<f32>>) -> (tensor<6x4x4xcomplex<f32>>, tensor<6x4xi32>, tensor<6xi32>)
    return %llh, %qtimesr, %vwvh, %usvt, %lx, %lhy, %lu#0, %lu#1 : tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4xi32>
  }
  func.func public @identities(%a: tensor<6x4x4xcomplex<f32>>, %b: tensor<6x4x4xcomplex<f32>>) -> (tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4xi32>) {
    %ah = call @ch(%a) : (tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %aah = call @cmm(%a, %ah) : (tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %eye = call @eye() : () -> tensor<6x4x4xcomplex<f32>>
    %h = stablehlo.add %aah, %eye : tensor<6x4x4xcomplex<f32>>
    %s = stablehlo.add %a, %ah : tensor<6x4x4xcomplex<f32>>
    %lu:3 = stablehlo.custom_call @lapack_cgetrf_ffi(%a) {mhlo.backend_config = {}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<6x4x4xcomplex<f32>>) -> (tensor<6x4x4xcomplex<f32>>, tensor<6x4xi32>, tensor<6xi32>)
    return %h, %a, %s, %a, %b, %b, %lu#0, %lu#1 : tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4x4xcomplex<f32>>, tensor<6x4xi32>
  }
  func.func private @cmm(%x: tensor<6x4x4xcomplex<f32>>, %y: tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>> {
    %xr = stablehlo.real %x : (tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xf32>
    %xi = stablehlo.imag %x : (tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xf32>
    %yr = stablehlo.real %y : (tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xf32>
    %yi = stablehlo.imag %y : (tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xf32>
    %rr = stablehlo.dot_general %xr, %yr, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<6x4x4xf32>, tensor<6x4x4xf32>) -> tensor<6x4x4xf32>
    %ii = stablehlo.dot_general %xi, %yi, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<6x4x4xf32>, tensor<6x4x4xf32>) -> tensor<6x4x4xf32>
    %ri = stablehlo.dot_general %xr, %yi, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<6x4x4xf32>, tensor<6x4x4xf32>) -> tensor<6x4x4xf32>
    %ir = stablehlo.dot_general %xi, %yr, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<6x4x4xf32>, tensor<6x4x4xf32>) -> tensor<6x4x4xf32>
    %re = stablehlo.subtract %rr, %ii : tensor<6x4x4xf32>
    %im = stablehlo.add %ri, %ir : tensor<6x4x4xf32>
    %z = stablehlo.complex %re, %im : tensor<6x4x4xcomplex<f32>>
    return %z : tensor<6x4x4xcomplex<f32>>
  }
  func.func private @ch(%x: tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>> {
    %t = stablehlo.transpose %x, dims = [0, 2, 1] : (tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>>
    %re = stablehlo.real %t : (tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xf32>
    %im = stablehlo.imag %t : (tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xf32>
    %neg = stablehlo.negate %im : tensor<6x4x4xf32>
    %z = stablehlo.complex %re, %neg : tensor<6x4x4xcomplex<f32>>
    return %z : tensor<6x4x4xcomplex<f32>>
  }
  func.func private @cdiag(%v: tensor<6x4xf32>) -> tensor<6x4x4xcomplex<f32>> {
    %row = stablehlo.iota dim = 1 : tensor<6x4x4xi32>
    %col = stablehlo.iota dim = 2 : tensor<6x4x4xi32>
    %on = stablehlo.compare  EQ, %row, %col,  SIGNED : (tensor<6x4x4xi32>, tensor<6x4x4xi32>) -> tensor<6x4x4xi1>
    %wide = stablehlo.broadcast_in_dim %v, dims = [0, 2] : (tensor<6x4xf32>) -> tensor<6x4x4xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<6x4x4xf32>
    %re = stablehlo.select %on, %wide, %zero : tensor<6x4x4xi1>, tensor<6x4x4xf32>
    %z = stablehlo.complex %re, %zero : tensor<6x4x4xcomplex<f32>>
    return %z : tensor<6x4x4xcomplex<f32>>
  }
  func.func private @eye() -> tensor<6x4x4xcomplex<f32>> {
    %one = stablehlo.constant dense<1.000000e+00> : tensor<6x4xf32>
    %z = call @cdiag(%one) : (tensor<6x4xf32>) -> tensor<6x4x4xcomplex<f32>>
    return %z : tensor<6x4x4xcomplex<f32>>
  }
  func.func private @tril(%x: tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>> {
    %row = stablehlo.iota dim = 1 : tensor<6x4x4xi32>
    %col = stablehlo.iota dim = 2 : tensor<6x4x4xi32>
    %keep = stablehlo.compare  GE, %row, %col,  SIGNED : (tensor<6x4x4xi32>, tensor<6x4x4xi32>) -> tensor<6x4x4xi1>
    %zero = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<6x4x4xcomplex<f32>>
    %z = stablehlo.select %keep, %x, %zero : tensor<6x4x4xi1>, tensor<6x4x4xcomplex<f32>>
    return %z : tensor<6x4x4xcomplex<f32>>
  }
  func.func private @triu(%x: tensor<6x4x4xcomplex<f32>>) -> tensor<6x4x4xcomplex<f32>> {
    %row = stablehlo.iota dim = 1 : tensor<6x4x4xi32>
    %col = stablehlo.iota dim = 2 : tensor<6x4x4xi32>
    %keep = stablehlo.compare  LE, %row, %col,  SIGNED : (tensor<6x4x4xi32>, tensor<6x4x4xi32>) -> tensor<6x4x4xi1>
    %zero = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<6x4x4xcomplex<f32>>
    %z = stablehlo.select %keep, %x, %zero : tensor<6x4x4xi1>, tensor<6x4x4xcomplex<f32>>
    return %z : tensor<6x4x4xcomplex<f32>>
  }
}
