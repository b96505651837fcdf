module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["device_axis"=4]>
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"device_axis"}, {}]>}) -> (tensor<1x2xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"device_axis"}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={"device_axis"} (%arg1: tensor<1x2xf32>) {
      %1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %2 : tensor<f32>
      }) : (tensor<1x2xf32>) -> tensor<1x2xf32>
      sdy.return %1 : tensor<1x2xf32>
    } : (tensor<4x2xf32>) -> tensor<1x2xf32>
    return %0 : tensor<1x2xf32>
  }
}
