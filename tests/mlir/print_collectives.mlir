// JAX's collectives carry channel_handle and use_global_device_ids in their
// properties; the channel handle is kept as read, the printer writes its own
// use_global_device_ids, each once, not again in the attribute dict.
sdy.mesh @mesh = <["x"=4]>
func.func @main(%arg0: tensor<4xf32>) -> tensor<16xf32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<1xf32>) {
    %1 = "stablehlo.all_gather"(%arg1) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 7, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<1xf32>) -> tensor<4xf32>
    sdy.return %1 : tensor<4xf32>
  } : (tensor<4xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}
