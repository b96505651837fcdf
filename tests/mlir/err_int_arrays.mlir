// Errors inside an array of integers read whole (parse_sdy_fast.c) point
// where they do when it is read token by token.
func.func @main(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %t = stablehlo.transpose %x, dims = [1, 1] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %u = stablehlo.reverse %x, dims = [0, 0] : tensor<4x8xf32>
  return %t : tensor<8x4xf32>
}
