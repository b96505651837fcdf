// Errors in op lines the scanner reads whole (src/mlir/parse_op_fast.c)
// and in ones it leaves to the grammar: each reported where and as before.
module {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @f(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
    %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %a = stablehlo.dot_general %d, %w, contracting_dims = [3] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    return %a : tensor<8x32xf32>
  }
  func.func @g(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
    %e = stablehlo.exponential %x {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %b = stablehlo.add %e, %nope {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : tensor<8x32xf32>
    return %b : tensor<8x32xf32>
  }
  func.func @h(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
    %e = stablehlo.exponential %x {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %b = stablehlo.add %e, %e {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"modl"}]>]>} : tensor<8x32xf32>
    return %b : tensor<8x32xf32>
  }
}
