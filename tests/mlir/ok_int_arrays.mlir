// Arrays of integers after `=` in their common form are read whole by the
// scanner (parse_sdy_fast.c), others token by token: both read alike,
// negative integers, one element, and spacing sdy_opt does not print.
func.func @main(%x: tensor<4x8xf32>) -> tensor<7x8xf32> {
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %u = stablehlo.transpose %t, dims = [1,0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %r = stablehlo.reverse %u, dims = [ 0 , 1 ] : tensor<4x8xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %p = stablehlo.pad %r, %c, low = [-1, 0], high = [4, 0], interior = [0, 0] : (tensor<4x8xf32>, tensor<f32>) -> tensor<7x8xf32>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<7x8xf32>
  %s = stablehlo.add %p, %b : tensor<7x8xf32>
  return %s : tensor<7x8xf32>
}
