sdy.mesh @mesh = <["x"=2]>
func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"q"} (%arg1: tensor<2xf32>) {
    sdy.return %arg1 : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "sdy.manual_computation"(%arg0) <{manual_axes = #sdy<manual_axes{"x"}>}> ({
  ^bb0(%arg1: tensor<2xf32>):
    sdy.return %arg1 : tensor<2xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x", "x"} (%arg1: tensor<2xf32>) {
    sdy.return %arg1 : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
