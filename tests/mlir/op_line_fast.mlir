// RUN: shardc %s --emit=ir
// Op lines the scanner reads whole (src/mlir/parse_op_fast.c), each after
// an op ending in `: (types) -> types`, beside the lines it leaves to the
// grammar: a loc(...), a generic op, another attribute, other spacing, a
// `%r:N` result, a continuation on the next line. All read as before.
#loc1 = loc("model.py":7:3)
module {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @f(%x: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %w: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}) -> tensor<8x32xf32> {
    %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %a = stablehlo.add %d, %d {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : tensor<8x32xf32>
    %b = stablehlo.multiply %a, %d {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : tensor<8x32xf32> loc("model.py":3:1)
    %r = "shardc.reduce_mean"(%b) {dims = array<i64: 1>, sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : (tensor<8x32xf32>) -> tensor<8xf32>
    %bb = stablehlo.broadcast_in_dim %r, dims = [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {}]>]>} : (tensor<8xf32>) -> tensor<8x32xf32>
    %c = stablehlo.subtract %b, %bb {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>, mhlo.frontend = "x"} : tensor<8x32xf32>
    %t = stablehlo.transpose %c, dims = [1, 0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"model"}, {"data"}]>]>} : (tensor<8x32xf32>) -> tensor<32x8xf32>
    %u = stablehlo.transpose  %t, dims = [1, 0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : (tensor<32x8xf32>) -> tensor<8x32xf32>
    %e = stablehlo.exponential %u {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %n = stablehlo.negate %e {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : tensor<8x32xf32>
      loc(#loc1)
    %m = stablehlo.maximum %n, %e {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %z = stablehlo.abs %m {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : tensor<8x32xf32> loc(#loc1)
    %g = "shardc.gelu"(%z) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %y = stablehlo.abs %g {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : tensor<8x32xf32>
    %v = stablehlo.sqrt %y {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : tensor<8x32xf32>
    %dd = stablehlo.dot_general %v, %v, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8xf32>
    %s = stablehlo.add %dd, %dd : tensor<8xf32>
    %q = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<8xf32>) -> tensor<8x32xf32>
    func.return %q : tensor<8x32xf32>
  }
}
