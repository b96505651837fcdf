func.func @main() -> (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1x3x3x1xf32>) {
  %v = stablehlo.iota dim = 0 : tensor<9xf32>
  %x = stablehlo.reshape %v : (tensor<9xf32>) -> tensor<1x3x3x1xf32>
  %w = stablehlo.constant dense<1.0> : tensor<2x2x1x1xf32>
  %c = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x1xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %p = "stablehlo.reduce_window"(%x, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>} : (tensor<1x3x3x1xf32>, tensor<f32>) -> tensor<1x2x2x1xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %g = "stablehlo.select_and_scatter"(%x, %p, %zero) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %t : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 1, 1, 1>} : (tensor<1x3x3x1xf32>, tensor<1x2x2x1xf32>, tensor<f32>) -> tensor<1x3x3x1xf32>
  return %c, %p, %g : tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1x3x3x1xf32>
}
