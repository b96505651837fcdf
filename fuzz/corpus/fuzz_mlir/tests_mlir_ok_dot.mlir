func.func @main(%arg0: tensor<2x8x16xf32>, %arg1: tensor<2x16x4xf32>, %arg2: tensor<16x8xf32>, %arg3: tensor<8xf32>) -> (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<16xf32>, tensor<f32>, tensor<4x2x8xf32>) {
  %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x16xf32>, tensor<2x16x4xf32>) -> tensor<2x8x4xf32>
  %1 = "stablehlo.dot_general"(%arg0, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}> : (tensor<2x8x16xf32>, tensor<2x16x4xf32>) -> tensor<2x8x4xf32>
  %2 = stablehlo.dot %arg2, %arg3 : (tensor<16x8xf32>, tensor<8xf32>) -> tensor<16xf32>
  %3 = stablehlo.dot %arg3, %arg3, precision = [HIGHEST, HIGHEST] : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  %4 = stablehlo.dot_general %arg1, %arg0, batching_dims = [0] x [0], contracting_dims = [1] x [2] : (tensor<2x16x4xf32>, tensor<2x8x16xf32>) -> tensor<2x4x8xf32>
  %5 = stablehlo.transpose %4, dims = [1, 0, 2] : (tensor<2x4x8xf32>) -> tensor<4x2x8xf32>
  return %0, %1, %2, %3, %5 : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<16xf32>, tensor<f32>, tensor<4x2x8xf32>
}
