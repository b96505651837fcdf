sdy.mesh @m = <["x"=4]>
func.func @f(%a: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}, %b: tensor<4x8xf32>) -> tensor<16x8xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<16x4xf32>, tensor<4x8xf32>) -> tensor<16x8xf32>
  %1 = stablehlo.negate %0 {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=16, j=8}, custom>} : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}
