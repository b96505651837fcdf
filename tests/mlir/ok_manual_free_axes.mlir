// Partial-manual manual computations: open dims, free axes after the
// manual ones, replicated manual axes, and manual_axes={}: read, kept
// apart (manual part on the shard_map, free part on the body), printed
// back joined, as written.
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
