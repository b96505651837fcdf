func.func @main(%arg0: tensor<4xf32>) -> tensor<*xf32> {
  return %arg0 : tensor<4xf32>
}
