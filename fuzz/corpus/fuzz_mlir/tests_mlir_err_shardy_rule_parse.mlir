func.func @f(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %a = stablehlo.custom_call @a(%x) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=6} need_replication={b}>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %b = stablehlo.custom_call @b(%x) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=6}, customized>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %c = stablehlo.custom_call @c(%x) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=6} permutation={j} reduction={i}>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %d = stablehlo.negate %x {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, jz_01]) {i=4, j=6}>} : tensor<4x6xf32>
  return %x : tensor<4x6xf32>
}
