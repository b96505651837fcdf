func.func @main(%arg0: tensor<4x8xf32>, %arg1: tensor<8x4xf32>) -> (tensor<4x8xi1>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = "stablehlo.compare"(%arg0, %arg0) <{comparison_direction = #stablehlo<comparison_direction SOMETIMES>}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %1 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [0] : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %2 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [], contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %0, %1, %2 : tensor<4x8xi1>, tensor<4x4xf32>, tensor<4x4xf32>
}
