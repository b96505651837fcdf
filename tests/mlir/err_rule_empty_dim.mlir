// `[i,]` is a dim mapping with no factor after the comma: Shardy parses it
// and its verifier rejects it (verifyShardingRuleMapping).
func.func @main(%arg0: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = stablehlo.add %arg0, %arg0 {sdy.sharding_rule = #sdy.op_sharding_rule<([i,], [i,])->([i, j]) {i=2, j=8}>} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
