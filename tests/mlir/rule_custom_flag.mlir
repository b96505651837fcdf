// A custom_call's sdy.sharding_rule prints back with `custom` only where
// it was written with it (Shardy's is_custom_rule), however shardc binds it.
func.func @main(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = stablehlo.custom_call @foo(%arg0) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=2, j=3} blocked_propagation={j}>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = stablehlo.custom_call @bar(%arg0) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=2, j=3}, custom>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}
