func.func @rule_on_dynamic(%arg0: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = stablehlo.abs %arg0 {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=3}>} : tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}
