// stablehlo.send and recv (host transfers, on a maximal mesh): nothing
// propagates through them, so the recv'd value takes its user's sharding
// from the function result, not the argument's sent before.
sdy.mesh @host = <[], device_ids=[0]>
sdy.mesh @m = <["a"=2, "b"=2]>
func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {"b"}]>}) -> (tensor<2x2xi32> {sdy.sharding = #sdy.sharding<@m, [{"b"}, {"a"}]>}) {
  %0 = stablehlo.after_all : !stablehlo.token
  %1 = "stablehlo.send"(%arg0, %0) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true, sdy.sharding = #sdy.sharding_per_value<[<@host, []>]>} : (tensor<8x8xf32>, !stablehlo.token) -> !stablehlo.token
  %2:2 = "stablehlo.recv"(%1) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<2x2xi32>, !stablehlo.token)
  %3 = stablehlo.abs %2#0 : tensor<2x2xi32>
  return %3 : tensor<2x2xi32>
}
