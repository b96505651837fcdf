// A custom_call with an sdy.sharding_rule whose target is a function of
// the module: propagation and partitioning use the rule, and `shardc run`
// runs the function as the target's meaning (on whole values, as a
// custom op without a partition function runs), matching the reference.
sdy.mesh @m = <["x"=2]>
func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) -> tensor<8x4xf32> {
  %0 = stablehlo.custom_call @foo(%arg0) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=8, j=4}>} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
func.func private @foo(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
