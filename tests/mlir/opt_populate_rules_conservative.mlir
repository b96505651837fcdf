module {
  func.func @resized(%x: tensor<8x6xf32>, %y: tensor<8x2xf32>, %i: tensor<4x12x6xf32>, %k: tensor<3x6x16xf32>) -> (tensor<8x8xf32>, tensor<8x3xf32>, tensor<8x10xf32>, tensor<4x4x16xf32>) {
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.concatenate %x, %y, dim = 1 : (tensor<8x6xf32>, tensor<8x2xf32>) -> tensor<8x8xf32>
    %s = stablehlo.slice %x [0:8, 0:6:2] : (tensor<8x6xf32>) -> tensor<8x3xf32>
    %p = stablehlo.pad %x, %zero, low = [0, 2], high = [0, 2], interior = [0, 0] : (tensor<8x6xf32>, tensor<f32>) -> tensor<8x10xf32>
    %v = stablehlo.convolution(%i, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [3]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<4x12x6xf32>, tensor<3x6x16xf32>) -> tensor<4x4x16xf32>
    return %c, %s, %p, %v : tensor<8x8xf32>, tensor<8x3xf32>, tensor<8x10xf32>, tensor<4x4x16xf32>
  }
  func.func @windows(%x: tensor<8x6xf32>, %s: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<8x6xf32>) {
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%x, %ninf) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 2, 1>} : (tensor<8x6xf32>, tensor<f32>) -> tensor<4x6xf32>
    %1 = "stablehlo.select_and_scatter"(%x, %s, %zero) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    }, {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 2, 1>} : (tensor<8x6xf32>, tensor<4x6xf32>, tensor<f32>) -> tensor<8x6xf32>
    return %0, %1 : tensor<4x6xf32>, tensor<8x6xf32>
  }
}
