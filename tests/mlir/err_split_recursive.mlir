// A constant call of a function that calls itself: copying its callee per
// use would not end (Shardy's splitter recurses without end here); shardc
// stops at 64 levels with an error at the call.
func.func @main() -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = call @loop() : () -> tensor<4xf32>
  %1 = stablehlo.abs %0 : tensor<4xf32>
  %2 = stablehlo.negate %0 : tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

func.func private @loop() -> tensor<4xf32> {
  %0 = call @loop() : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
