func.func @callee(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %arg0 : tensor<?x4xf32>
}
func.func @call(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = func.call @callee(%arg0) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
