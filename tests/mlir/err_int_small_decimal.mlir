// Integers read without strtoll (18 digits or fewer, parse_build.c) and with it:
// -0, 00, 18 and 19 digits, the largest int64 and one past it.
func.func @f(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %a = stablehlo.transpose %x, dims = [-0, 00] : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %b = stablehlo.transpose %a, dims = [999999999999999999, -999999999999999999] : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c = stablehlo.transpose %b, dims = [9223372036854775807, 9223372036854775808] : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}
