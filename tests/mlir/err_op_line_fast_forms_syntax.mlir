// A malformed sharding in a generic op line the scanner would read whole
// (src/mlir/parse_op_fast.c): the grammar reads it and reports it as before.
module {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @k(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
    %e = stablehlo.exponential %x : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %g = "shardc.gelu"(%e) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"]>]>} : (tensor<8x32xf32>) -> tensor<8x32xf32>
    return %g : tensor<8x32xf32>
  }
}
