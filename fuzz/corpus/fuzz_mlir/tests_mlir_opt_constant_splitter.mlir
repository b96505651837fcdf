func.func @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %0 = stablehlo.constant dense<1.000000e+00> : tensor<8x16xf32>
  %1 = stablehlo.negate %0 : tensor<8x16xf32>
  %2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
  %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
  %4 = stablehlo.add %arg0, %1 : tensor<8x16xf32>
  %5 = stablehlo.dot_general %1, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %6 = stablehlo.multiply %4, %3 : tensor<8x16xf32>
  %7 = stablehlo.add %5, %3 : tensor<8x16xf32>
  return %6, %7, %0 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}
