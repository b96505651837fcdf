// A custom_call with an sdy.sharding_rule whose target the module does not
// define (a runtime custom_call): compiling uses the rule alone. It
// propagates ("x" on the rows reaches the result) and partitions by the
// rule, the target running on each device's block of rows, as XLA runs
// it after Shardy; `shardc run`, which would have to compute @foo, reports
// it at the op. custom_call_rule_known.mlir defines its target.
sdy.mesh @m = <["x"=2]>
func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) -> tensor<8x4xf32> {
  %0 = stablehlo.custom_call @foo(%arg0) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=8, j=4}>} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
