sdy.mesh @mesh = <["x"=2]>
func.func @manual(%arg0: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {"x"}]>] out_shardings=[<@mesh, [{}, {"x"}]>] manual_axes={"x"} (%arg1: tensor<?x16xf32>) {
    sdy.return %arg1 : tensor<?x16xf32>
  } : (tensor<?x32xf32>) -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}
