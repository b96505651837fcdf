func.func @f(%x: tensor<4x6xf32>, %y: tensor<6xf32>) -> tensor<4x6xf32> {
  %a = stablehlo.multiply %x, %x {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [j])->([i, j]) {i=4, j=6}>} : tensor<4x6xf32>
  %b = stablehlo.negate %x {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j], [i]) {i=4, j=6}>} : tensor<4x6xf32>
  %c = stablehlo.negate %x {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, m]) {i=4, j=6}>} : tensor<4x6xf32>
  %d = stablehlo.negate %x {sdy.sharding_rule = #sdy.op_sharding_rule<([i, jk])->([i, jk]) {i=4, j=6, k=1}>} : tensor<4x6xf32>
  %e = stablehlo.negate %x {sdy.sharding_rule = #sdy.op_sharding_rule<([i, i])->([i, j]) {i=4, j=6}>} : tensor<4x6xf32>
  %g = stablehlo.custom_call @g(%x) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=6, k=3}>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %h = stablehlo.custom_call @h(%x) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=6} permutation={j, j}>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %k = stablehlo.custom_call @k(%x) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=6} blocked_propagation={q}>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %l = stablehlo.custom_call @l(%x) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i]) {i=4, j=6} reduction={j} permutation={j}>} : (tensor<4x6xf32>) -> tensor<4xf32>
  %n = stablehlo.custom_call @n(%x) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=6} reduction={i}>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %o = stablehlo.custom_call @o(%x) {sdy.sharding_rule = "ij->ij"} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %p = stablehlo.add %x, %x {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=6}>} : tensor<4x6xf32>
  return %x : tensor<4x6xf32>
}
