// Tensor types only (and !stablehlo.token), of shardc's element types
// (dynamic and unranked tensors: dynamic_*.mlir).
func.func @main(%arg1: tensor<4xcomplex<i32>>, %arg2: !stablehlo.token, %arg3: f32) -> tensor<4xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<4xf32>
  return %0 : tensor<4xf32>
}
