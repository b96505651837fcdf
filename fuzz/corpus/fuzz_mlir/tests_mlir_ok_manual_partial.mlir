sdy.mesh @mesh = <["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>
func.func @main(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={"x"} (%arg1: tensor<4x4xf32>) {
    %1 = "stablehlo.all_reduce"(%arg1) <{replica_groups = dense<[[1, 3], [2, 0]]> : tensor<2x2xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.minimum %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %2 = "stablehlo.all_gather"(%1) <{all_gather_dim = 0 : i64, replica_groups = dense<[[3, 1], [2, 0]]> : tensor<2x2xi64>, use_global_device_ids}> : (tensor<4x4xf32>) -> tensor<8x4xf32>
    sdy.return %2 : tensor<8x4xf32>
  } : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
