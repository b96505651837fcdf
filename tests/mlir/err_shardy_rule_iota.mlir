// A rule's factor sizes name its factors in index order (i, j, k, ...,
// z, z_1, ...), as Shardy's parser requires.
func.func @f(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %a = stablehlo.negate %x {sdy.sharding_rule = #sdy.op_sharding_rule<([i, k])->([i, k]) {i=4, k=6}>} : tensor<4x6xf32>
  return %a : tensor<4x6xf32>
}
