// An op line with an undefined operand, followed by a line the scanner
// rejects: the op is left to the grammar (src/mlir/parse_op_fast.c), so
// both errors are reported, in the order they were before.
func.func @f(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %e = stablehlo.exponential %x : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %b = stablehlo.add %e, %nope {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<8x32xf32>
  ' %c = stablehlo.add %b, %b : tensor<8x32xf32>
  return %b : tensor<8x32xf32>
}
