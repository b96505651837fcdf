sdy.mesh @m = <["data"=2, "model"=4]>

func.func public @main(%x: tensor<16x64xf32> {sdy.sharding = #sdy.sharding<@m, [{"data"}, {}]>},
                       %w1: tensor<64x256xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"model"}]>},
                       %w2: tensor<256x64xf32>) -> tensor<16x64xf32> {
  %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<16x64xf32>, tensor<64x256xf32>) -> tensor<16x256xf32>
  %a = stablehlo.tanh %h : tensor<16x256xf32>
  %y = stablehlo.dot_general %a, %w2, contracting_dims = [1] x [0] : (tensor<16x256xf32>, tensor<256x64xf32>) -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}
