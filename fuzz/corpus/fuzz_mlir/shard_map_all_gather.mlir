module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["gather_axis"=4]>
  func.func public @main(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"gather_axis"}]>}) -> (tensor<16xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"gather_axis"}]>] out_shardings=[<@mesh, [{"gather_axis"}]>] manual_axes={"gather_axis"} (%arg1: tensor<1xf32>) {
      %2 = "stablehlo.all_gather"(%arg1) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<1xf32>) -> tensor<4xf32>
      sdy.return %2 : tensor<4xf32>
    } : (tensor<4xf32>) -> tensor<16xf32>
    %1 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"gather_axis"}]>] out_shardings=[<@mesh, [{}]>] manual_axes={"gather_axis"} (%arg1: tensor<1xf32>) {
      %2 = "stablehlo.all_gather"(%arg1) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<1xf32>) -> tensor<4xf32>
      sdy.return %2 : tensor<4xf32>
    } : (tensor<4xf32>) -> tensor<4xf32>
    return %0, %1 : tensor<16xf32>, tensor<4xf32>
  }
}
