// reduce_window with two inputs and inits that are arguments, with an init
// that is not its reduction's identity, and select_and_scatter selecting
// with GT from a non-constant init, read from StableHLO and printed back
// (inits stay operands; a GE select is the default direction).
func.func @main(%x: tensor<4x6xf32>, %y: tensor<4x6xi32>, %ix: tensor<f32>, %iy: tensor<i32>, %s: tensor<2x6xf32>)
    -> (tensor<2x6xf32>, tensor<2x6xi32>, tensor<4x6xf32>) {
  %0:2 = "stablehlo.reduce_window"(%x, %y, %ix, %iy) ({
  ^bb0(%a0: tensor<f32>, %a1: tensor<i32>, %b0: tensor<f32>, %b1: tensor<i32>):
    %m0 = stablehlo.maximum %a0, %b0 : tensor<f32>
    %m1 = stablehlo.maximum %a1, %b1 : tensor<i32>
    stablehlo.return %m0, %m1 : tensor<f32>, tensor<i32>
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 2, 1>}
      : (tensor<4x6xf32>, tensor<4x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<2x6xf32>, tensor<2x6xi32>)
  %1 = "stablehlo.select_and_scatter"(%x, %s, %ix) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %d = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %d : tensor<f32>
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 2, 1>}
      : (tensor<4x6xf32>, tensor<2x6xf32>, tensor<f32>) -> tensor<4x6xf32>
  return %0#0, %0#1, %1 : tensor<2x6xf32>, tensor<2x6xi32>, tensor<4x6xf32>
}
