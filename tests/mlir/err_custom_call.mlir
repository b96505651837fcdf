// custom_call needs a sharding rule shardc can write as a rule string.
func.func @main(%arg0: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = stablehlo.custom_call @SPMDFullToShardShape(%arg0) {backend_config = ""} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = stablehlo.custom_call @foo(%arg0) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=8} blocked_propagation={j}>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = stablehlo.custom_call @bar(%arg0) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=8, k=2}>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
