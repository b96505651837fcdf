sdy.mesh @m = <["a"=4, "b"=2]>
sdy.mesh @m8 = <["a"=8]>

func.func @split_overflows_operand(%arg0: tensor<20xf32> {sdy.sharding = #sdy.sharding<@m, [{"a", "b"}]>}) -> (tensor<10x2xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {}]>}) {
  %0 = stablehlo.reshape %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}, {}]>]>} : (tensor<20xf32>) -> tensor<10x2xf32>
  return %0 : tensor<10x2xf32>
}

func.func @merge_overflows_result(%arg0: tensor<6x4x4294967296xbf16> {sdy.sharding = #sdy.sharding<@m, [{}, {}, {}]>}) -> (tensor<24x4294967296xbf16> {sdy.sharding = #sdy.sharding<@m, [{"a", "b"}, {}]>}) {
  %0 = stablehlo.reshape %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a", "b"}, {}]>]>} : (tensor<6x4x4294967296xbf16>) -> tensor<24x4294967296xbf16>
  return %0 : tensor<24x4294967296xbf16>
}

func.func @written_rule(%arg0: tensor<1x1xf32> {sdy.sharding = #sdy.sharding<@m8, [{"a"}, {}]>}) -> (tensor<f32> {sdy.sharding = #sdy.sharding<@m8, []>}) {
  %0 = stablehlo.reshape %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@m8, []>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([ij, k])->([]) {i=3, j=4, k=1}>} : (tensor<1x1xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
