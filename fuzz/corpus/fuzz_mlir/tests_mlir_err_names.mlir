sdy.mesh @mesh = <["x"=2]>
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %nothing : tensor<4xf32>
  %1 = stablehlo.negate %arg0 : tensor<4xf32>
  %1 = stablehlo.abs %arg0 : tensor<4xf32>
  %2 = stablehlo.add %1#1, %1 : tensor<4xf32>
  %3 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<2xf32>) {
    %4 = stablehlo.add %arg1, %arg0 : tensor<2xf32>
    sdy.return %4 : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
