// shardc opt passes dynamic and unranked values on only as function
// arguments and results that no op uses (docs/mlir.md "What is read"):
// an op over one is refused, located and by name; after the checks
// Shardy's verifier makes of it (err_dynamic_verify.mlir) for the ops
// those speak of, at once for the others.
func.func @elementwise(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
// -----
func.func @static_result(%arg0: tensor<8x4xf32>, %arg1: tensor<*xf32>) -> tensor<8x4xf32> {
  %0 = stablehlo.convert %arg1 : (tensor<*xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
// -----
func.func @reshape(%arg0: tensor<?x4xf32>) -> tensor<?xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<?x4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
// -----
func.func @iota() -> tensor<?xi32> {
  %0 = stablehlo.iota dim = 0 : tensor<?xi32>
  return %0 : tensor<?xi32>
}
// -----
func.func @callee(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %arg0 : tensor<?x4xf32>
}
func.func @call(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = func.call @callee(%arg0) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
// -----
sdy.mesh @mesh = <["x"=2]>
func.func @manual(%arg0: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {"x"}]>] out_shardings=[<@mesh, [{}, {"x"}]>] manual_axes={"x"} (%arg1: tensor<?x16xf32>) {
    sdy.return %arg1 : tensor<?x16xf32>
  } : (tensor<?x32xf32>) -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}
// -----
func.func @custom(%arg0: tensor<*xf32>) {
  stablehlo.custom_call @foo(%arg0) {has_side_effect = true} : (tensor<*xf32>) -> ()
  return
}
// -----
// shardc's own verifier spells them as .shir would, were they .shir's.
func.func @return_mismatch(%arg0: tensor<?x4xf32>, %arg1: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<*xf32>) {
  return %arg0, %arg1 : tensor<?x4xf32>, tensor<4xf32>
}
