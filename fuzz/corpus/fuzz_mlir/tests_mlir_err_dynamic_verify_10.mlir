sdy.mesh @mesh = <["x"=4, "y"=2]>
func.func @manual_unranked(%arg0: tensor<*xf32>) -> tensor<*xf32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<*xf32>) {
    sdy.return %arg1 : tensor<*xf32>
  } : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
