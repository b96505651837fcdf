// A dim too large for 64 bits in an op's function type is left to the
// grammar by the scanner's whole read (src/mlir/parse_sdy_fast.c), which
// reports it at its type.
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = stablehlo.add %x, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %b = stablehlo.add %x, %a : (tensor<8xf32>, tensor<99999999999999999999xf32>) -> tensor<8xf32>
  return %b : tensor<8xf32>
}
