// A LAPACK target shardc does not run (geev, here) compiles (replicated,
// no rule) and is a located error naming the ones it runs when run.
func.func @main(%a: tensor<4x4xf32>) -> tensor<4xf32> {
  %0:5 = stablehlo.custom_call @lapack_sgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}} : (tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<i32>)
  return %0#0 : tensor<4xf32>
}
