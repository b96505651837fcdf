func.func @return_mismatch(%arg0: tensor<?x4xf32>, %arg1: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<*xf32>) {
  return %arg0, %arg1 : tensor<?x4xf32>, tensor<4xf32>
}
