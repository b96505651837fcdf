// Errors in the op lines of the other forms the scanner reads whole
// (src/mlir/parse_op_fast.c): generic ops, reduces, constants. Each is
// reported where and as the grammar's reading reports it.
module {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @f(%x: tensor<8x32xf32>) -> tensor<8xf32> {
    %e = stablehlo.exponential %x : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %r = "shardc.reduce_mean"(%e) {dims = array<i64: 1>, foo = [1, 2], sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : (tensor<8x32xf32>) -> tensor<8xf32>
    func.return %r : tensor<8xf32>
  }
  func.func @g(%x: tensor<8x32xf32>) -> tensor<8xf32> {
    %e = stablehlo.exponential %x : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %m = stablehlo.reduce(%e init: %nope) applies stablehlo.maximum across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    func.return %m : tensor<8xf32>
  }
  func.func @h(%x: tensor<8x32xf32>) -> tensor<8xf32> {
    %e = stablehlo.exponential %x : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %c = stablehlo.constant {shardc.implicit_constant} dense<0xZZ> : tensor<f32>
    %m = stablehlo.reduce(%e init: %c) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    func.return %m : tensor<8xf32>
  }
  func.func @k(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
    %e = stablehlo.exponential %x : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %g = "shardc.nope"(%e) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"modl"}]>]>} : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %h = "shardc.gelu"(%e, %e) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %i = stablehlo.reduce(%e init: %e) applies stablehlo.divide across dimensions = [1] {shardc.x} : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8xf32>
    func.return %h : tensor<8x32xf32>
  }
}
