// A manual computation is inlined: its body's values take their local
// types under the free axes, its collectives keep their channel handles.
sdy.mesh @m = <["a"=2, "b"=2]>

func.func @manual(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"a", "b"}, {}]>})
    -> tensor<8x4xf32> {
  %0 = sdy.manual_computation(%arg0)
    in_shardings=[<@m, [{"a", "b"}, {}]>]
    out_shardings=[<@m, [{"a", "b"}, {}]>]
    manual_axes={"a"} (%arg1: tensor<4x4xf32>) {
    %1 = stablehlo.exponential %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"b"}, {}]>]>} : tensor<4x4xf32>
    %2 = "stablehlo.all_reduce"(%1) ({
      ^bb0(%x: tensor<f32>, %y: tensor<f32>):
        %s = stablehlo.add %x, %y : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 7, type = 0>,
        sdy.sharding = #sdy.sharding_per_value<[<@m, [{"b"}, {}]>]>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    sdy.return %2 : tensor<4x4xf32>
  } : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %3 = sdy.all_gather [{"a", "b"}, {}] %0 out_sharding=<@m, [{}, {}]> : tensor<8x4xf32>
  return %3 : tensor<8x4xf32>
}
