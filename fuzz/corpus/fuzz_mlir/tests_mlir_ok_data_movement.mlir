func.func @main(%arg0: tensor<4x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<4x8xi32>) -> (tensor<2x4x8xf32>, tensor<32xf32>, tensor<8x8xf32>, tensor<2x3xf32>, tensor<4x8xf32>, tensor<6x17xf32>, tensor<4x8xi32>, tensor<4x8xi1>) {
  %0 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<8xf32>) -> tensor<2x4x8xf32>
  %1 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4x8xf32>
  %2 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %3 = "stablehlo.transpose"(%2) <{permutation = array<i64: 1, 0>}> : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %4 = stablehlo.reshape %3 : (tensor<4x8xf32>) -> tensor<32xf32>
  %5 = stablehlo.concatenate %arg0, %1, dim = 0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %6 = stablehlo.slice %arg0 [1:3, 0:6:2] : (tensor<4x8xf32>) -> tensor<2x3xf32>
  %7 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 4, 8>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %cst = stablehlo.constant dense<1.500000e+00> : tensor<f32>
  %8 = stablehlo.pad %arg0, %cst, low = [1, 0], high = [1, 2], interior = [0, 1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<6x17xf32>
  %9 = stablehlo.iota dim = 1 : tensor<4x8xi32>
  %10 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4x8xi32>
  %11 = stablehlo.add %9, %10 : tensor<4x8xi32>
  %12 = stablehlo.compare EQ, %11, %arg2, SIGNED : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi1>
  %13 = stablehlo.compare NE, %arg0, %3 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %14 = stablehlo.compare LT, %arg0, %3, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %15 = stablehlo.compare LE, %arg0, %3, TOTALORDER : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %16 = "stablehlo.compare"(%arg0, %3) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %17 = stablehlo.compare GE, %arg0, %3 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  return %0, %4, %5, %6, %7, %8, %11, %17 : tensor<2x4x8xf32>, tensor<32xf32>, tensor<8x8xf32>, tensor<2x3xf32>, tensor<4x8xf32>, tensor<6x17xf32>, tensor<4x8xi32>, tensor<4x8xi1>
}
