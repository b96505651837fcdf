func.func @rule_on_unranked(%arg0: tensor<*xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.convert %arg0 {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=4}>} : (tensor<*xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
