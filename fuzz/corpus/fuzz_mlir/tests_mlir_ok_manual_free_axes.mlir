sdy.mesh @mesh = <["x"=2, "y"=2, "z"=2]>
func.func @main(%arg0: tensor<16x8xf32>, %arg1: tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x", "y", ?}, {?}], replicated={"z"}>] out_shardings=[<@mesh, [{"x", ?}, {"y"}]>] manual_axes={"x"} (%arg2: tensor<8x8xf32>) {
    %2 = stablehlo.negate %arg2 : tensor<8x8xf32>
    sdy.return %2 : tensor<8x8xf32>
  } : (tensor<16x8xf32>) -> tensor<16x8xf32>
  %1 = sdy.manual_computation(%arg1) in_shardings=[<@mesh, [{?}, {"z", ?}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={} (%arg2: tensor<16x8xf32>) {
    sdy.return %arg2 : tensor<16x8xf32>
  } : (tensor<16x8xf32>) -> tensor<16x8xf32>
  return %0, %1 : tensor<16x8xf32>, tensor<16x8xf32>
}
