sdy.mesh @mesh = <["b"=2, "m"=2]>
func.func @main(%arg0: tensor<8x16xf32>, %arg1: tensor<i32>, %arg2: tensor<8x4x4xf32>) -> (tensor<8x2xf32>, tensor<8x2xi32>, tensor<8x16xf32>, tensor<8xf32>, tensor<16x8xf32>) {
  %0:2 = stablehlo.custom_call @top_k(%arg0, %arg1) {backend_config = "", sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [])->([i, k], [i, k]) {i=8, j=16, k=2} need_replication={j}, custom>} : (tensor<8x16xf32>, tensor<i32>) -> (tensor<8x2xf32>, tensor<8x2xi32>)
  %1 = stablehlo.custom_call @merge(%arg2) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, jk]) {i=8, j=4, k=4} permutation={j, k}>} : (tensor<8x4x4xf32>) -> tensor<8x16xf32>
  %2 = stablehlo.custom_call @Sharding(%1) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}, {}]>]>} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %3 = stablehlo.custom_call @sum(%2) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i]) {i=8, j=16} reduction={j}>} : (tensor<8x16xf32>) -> tensor<8xf32>
  %4 = stablehlo.custom_call @regroup(%arg0) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, jk])->([ij, k]) {i=8, j=2, k=8}>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
  return %0#0, %0#1, %2, %3, %4 : tensor<8x2xf32>, tensor<8x2xi32>, tensor<8x16xf32>, tensor<8xf32>, tensor<16x8xf32>
}
func.func private @top_k(%arg0: tensor<8x16xf32>, %arg1: tensor<i32>) -> (tensor<8x2xf32>, tensor<8x2xi32>) {
  %0:2 = "shardc.top_k"(%arg0) {k = 2} : (tensor<8x16xf32>) -> (tensor<8x2xf32>, tensor<8x2xi32>)
  return %0#0, %0#1 : tensor<8x2xf32>, tensor<8x2xi32>
}
func.func private @merge(%arg0: tensor<8x4x4xf32>) -> tensor<8x16xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<8x4x4xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
func.func private @sum(%arg0: tensor<8x16xf32>) -> tensor<8xf32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
func.func private @regroup(%arg0: tensor<8x16xf32>) -> tensor<16x8xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<8x16xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
