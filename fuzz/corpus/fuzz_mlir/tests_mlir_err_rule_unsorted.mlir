func.func @main(%arg0: tensor<8x4x4xf32>) -> tensor<8x16xf32> {
  %0 = stablehlo.custom_call @merge(%arg0) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, jk]) {i=8, j=4, k=4} permutation={k, j}>} : (tensor<8x4x4xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
