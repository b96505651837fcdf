sdy.mesh @m = <["a"=2, "b"=4]>

func.func @pair_gather(%p: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}, %q: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"a"}]>}) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0:2 = "stablehlo.all_gather"(%p, %q) <{all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>, <@m, [{}, {"a"}]>]>} : (tensor<4x2xf32>, tensor<4x2xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
  return %0#0, %0#1 : tensor<4x4xf32>, tensor<4x4xf32>
}

func.func @max_over_odd_groups(%p: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"b"}]>}) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}]>}) {
  %0 = "stablehlo.all_reduce"(%p) <{replica_groups = dense<[[0, 5], [1, 2]]> : tensor<2x2xi64>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %m = stablehlo.maximum %x, %y : tensor<f32>
      stablehlo.return %m : tensor<f32>
  }) {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}]>]>} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

func.func @broadcast(%p: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"b"}]>}) -> tensor<8xf32> {
  %0 = "stablehlo.collective_broadcast"(%p) <{channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, replica_groups = dense<[[4, 0]]> : tensor<1x2xi64>}> : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
