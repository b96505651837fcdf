// MLIR names per region, IR names per function (src/mlir/import.c): a
// region isolated from above may define the names of its parent, which
// mean the parent's values again after it; a name the region defined may
// be defined again after it. IR names stay unique: `_1`, `_2` added.
sdy.mesh @mesh = <["x"=2]>
func.func @main(%x: tensor<4xf32>, %y_1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %m = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%x: tensor<2xf32>) {
    %y = stablehlo.negate %x : tensor<2xf32>
    %m = stablehlo.abs %y : tensor<2xf32>
    sdy.return %m : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  %y = stablehlo.add %x, %m : tensor<4xf32>
  %z = stablehlo.add %y, %y_1 : tensor<4xf32>
  return %y, %z : tensor<4xf32>, tensor<4xf32>
}
