// Pass options of -sdy-convert-global-to-local: per-dim-all-gather,
// enable-rgv3 (replica groups by mesh axes, not for sub-axes),
// combine-multi-dimension-reduce-scatter, replica-count.
sdy.mesh @m = <["a"=2, "b"=4]>

func.func @gather(%arg0: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {"b"}]>}) -> tensor<4x8xf32> {
  %0 = sdy.all_gather [{"a"}, {"b"}] %arg0 out_sharding=<@m, [{}, {}]> : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

func.func @sub_axis(%arg0: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"b":(1)2}]>}) -> tensor<4x8xf32> {
  %0 = sdy.all_gather [{}, {"b":(1)2}] %arg0 out_sharding=<@m, [{}, {}]> : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

func.func @scatter(%arg0: tensor<4x8xf32>) -> (tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {"b"}]>}) {
  %0 = sdy.reduce_scatter [{"a"}, {"b"}] %arg0 out_sharding=<@m, [{"a"}, {"b"}]> : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

func.func @slice(%arg0: tensor<4x8xf32>) -> (tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) {
  %0 = sdy.all_slice [{"a"}, {}] %arg0 out_sharding=<@m, [{"a"}, {}]> : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
