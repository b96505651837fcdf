func.func @f(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %a = stablehlo.negate %x {sdy.sharding_rule = #sdy.op_sharding_rule<([i, k])->([i, k]) {i=4, k=6}>} : tensor<4x6xf32>
  return %a : tensor<4x6xf32>
}
