// A compare_type that is not a bare word (a mistyped dialect prefix the
// reader leaves as written) was printed into the custom form, where it
// does not read back (found by fuzz_mlir). The dtype's type goes there.
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  %0 = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlx<comparison_type FLOAT>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
