// RUN: shardc %s --emit=ir
// The op lines the scanner reads whole besides the elementwise ones
// (src/mlir/parse_op_fast.c): shardc's ops in the generic form, reduces
// with `applies`, constants with a unit attribute and a dense literal. @f
// reads them whole (each after an op ending in `: (types) -> types`); @g
// has the same ops, each after a `loc(...)` or with other spacing, read by
// the grammar: both print the same program.
module {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @f(%x: tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> tensor<8xf32> {
    %e = stablehlo.exponential %x : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %r = "shardc.reduce_mean"(%e) {dims = array<i64: 1>, sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : (tensor<8x32xf32>) -> tensor<8xf32>
    %b = stablehlo.broadcast_in_dim %r, dims = [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {}]>]>} : (tensor<8xf32>) -> tensor<8x32xf32>
    %g = "shardc.gelu"(%b) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %h = "shardc.gelu"(%g) : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %m.init = stablehlo.constant {shardc.implicit_constant} dense<0xFF800000> : tensor<f32>
    %m = stablehlo.reduce(%h init: %m.init) applies stablehlo.maximum across dimensions = [1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %s.init = stablehlo.constant {shardc.implicit_constant} dense<0.000000e+00> : tensor<f32>
    %s = stablehlo.reduce(%h init: %s.init) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %c = stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]> : tensor<8xf32>
    %a = "stablehlo.add"(%s, %c) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %z = stablehlo.add %a, %m : tensor<8xf32>
    func.return %z : tensor<8xf32>
  }
  func.func @g(%x: tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> tensor<8xf32> {
    %e = stablehlo.exponential %x : (tensor<8x32xf32>) -> tensor<8x32xf32> loc("g.py":1:1)
    %r = "shardc.reduce_mean"(%e) {dims = array<i64: 1>, sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : (tensor<8x32xf32>) -> tensor<8xf32> loc("g.py":2:1)
    %b = stablehlo.broadcast_in_dim %r, dims = [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {}]>]>} : (tensor<8xf32>) -> tensor<8x32xf32>
    %g = "shardc.gelu"(%b) {sdy.sharding =  #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %h = "shardc.gelu"( %g ) : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %m.init = stablehlo.constant {shardc.implicit_constant } dense<0xFF800000> : tensor<f32>
    %m = stablehlo.reduce(%h init:  %m.init) applies stablehlo.maximum across dimensions = [1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %s.init = stablehlo.constant {shardc.implicit_constant} dense<0.000000e+00> : tensor<f32> loc("g.py":3:1)
    %s = stablehlo.reduce(%h init: %s.init) applies stablehlo.add across dimensions = [1]  : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %c = stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]>  : tensor<8xf32>
    %a = "stablehlo.add"(%s,%c) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %z = stablehlo.add %a, %m : tensor<8xf32>
    func.return %z : tensor<8xf32>
  }
}
