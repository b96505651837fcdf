sdy.mesh @mesh = <["x"=2]>
func.func @main(%arg0: tensor<4xf32>, %my-arg: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %x:2 = call @two(%arg0) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %x.0 = stablehlo.add %x#0, %x#1 : tensor<4xf32>
  %a_b = stablehlo.add %x.0, %my-arg : tensor<4xf32>
  %a-b = stablehlo.negate %a_b : tensor<4xf32>
  %1 = sdy.manual_computation(%a-b) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg0: tensor<2xf32>) {
    %0 = stablehlo.negate %arg0 : tensor<2xf32>
    sdy.return %0 : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %x#1, %a-b, %1 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
func.func private @two(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %arg0, %arg0 : tensor<4xf32>, tensor<4xf32>
}
