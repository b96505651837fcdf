module {
  func.func @resized(%x: tensor<8x6xf32>, %y: tensor<8x2xf32>, %i: tensor<4x12x6xf32>, %k: tensor<3x6x16xf32>) -> (tensor<8x8xf32>, tensor<8x3xf32>, tensor<8x10xf32>, tensor<4x4x16xf32>) {
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.concatenate %x, %y, dim = 1 : (tensor<8x6xf32>, tensor<8x2xf32>) -> tensor<8x8xf32>
    %s = stablehlo.slice %x [0:8, 0:6:2] : (tensor<8x6xf32>) -> tensor<8x3xf32>
    %p = stablehlo.pad %x, %zero, low = [0, 2], high = [0, 2], interior = [0, 0] : (tensor<8x6xf32>, tensor<f32>) -> tensor<8x10xf32>
    %v = stablehlo.convolution(%i, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [3]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<4x12x6xf32>, tensor<3x6x16xf32>) -> tensor<4x4x16xf32>
    return %c, %s, %p, %v : tensor<8x8xf32>, tensor<8x3xf32>, tensor<8x10xf32>, tensor<4x4x16xf32>
  }
}
