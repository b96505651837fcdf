func.func @main(%arg0: tensor<8xf32>, %arg1: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) {
  %0 = stablehlo.broadcast_in_dim %arg0, dims = [1] {shardc.implicit_broadcast} : (tensor<8xf32>) -> tensor<4x8xf32>
  %1 = stablehlo.negate %0 : tensor<4x8xf32>
  %2 = stablehlo.broadcast_in_dim %arg0, dims = [1] {shardc.implicit_broadcast} : (tensor<8xf32>) -> tensor<4x8xf32>
  %3 = stablehlo.add %arg1, %2 : tensor<4x8xf32>
  %4 = stablehlo.add %2, %arg1 : tensor<4x8xf32>
  %5 = stablehlo.broadcast_in_dim %arg0, dims = [0] {shardc.implicit_broadcast} : (tensor<8xf32>) -> tensor<8x4xf32>
  %cst = stablehlo.constant {shardc.implicit_constant} dense<0.000000e+00> : tensor<f32>
  %6 = stablehlo.add %arg0, %cst : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %1, %3, %4, %6 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>
}
