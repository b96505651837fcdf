sdy.mesh @m = <["a"=2, "b"=2]>

// Without the full version (Shardy's default), a dot whose result alone
// conflicts with its lhs, on the axes the contracting dim is sharded by,
// computes the lhs's layout and reshards the smaller result.
func.func @dot_result(%x: tensor<8x64xf32> {sdy.sharding = #sdy.sharding<@m, [{"b"}, {"a"}]>},
                      %w: tensor<64x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) -> tensor<8x4xf32> {
  %0 = stablehlo.dot %x, %w {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>]>} : (tensor<8x64xf32>, tensor<64x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// An elementwise op is left alone, and so is the return.
func.func @add(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>},
               %y: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"b"}]>})
    -> (tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"b"}, {}]>}) {
  %0 = stablehlo.add %x, %y {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>]>} : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// A call's operands always take the callee's argument shardings.
func.func @caller(%x: tensor<16xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}]>}) -> tensor<16xf32> {
  %0 = call @callee(%x) : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}
func.func private @callee(%y: tensor<16xf32> {sdy.sharding = #sdy.sharding<@m, [{"b"}]>}) -> tensor<16xf32> {
  return %y : tensor<16xf32>
}
