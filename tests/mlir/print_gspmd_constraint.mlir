// GSPMD's sharding constraint, custom_call @Sharding, is read as a
// sharding_constraint and printed as sdy.sharding_constraint (as Shardy's
// import turns it), which reads back (found by fuzz_mlir: it printed as
// `stablehlo.custom_call %0 <@mesh, ...>`, which does not parse).
sdy.mesh @mesh = <["b"=2]>
func.func @main(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = stablehlo.custom_call @Sharding(%arg0) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}, {}]>]>} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
