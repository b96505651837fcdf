sdy.mesh @mesh = <["x"=2]>
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<2xf32>) {
    %1 = stablehlo.negate %arg1 : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
  %2 = stablehlo.negate %arg0 : tensor<4xf32>
}
"ml_program.global"() <{sym_name = "g", type = tensor<4xf32>, is_mutable}> : () -> ()
