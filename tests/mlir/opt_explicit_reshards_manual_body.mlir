sdy.mesh @m = <["a"=2, "b"=2, "c"=4]>

func.func @partial_manual(%x: tensor<16xf32> {sdy.sharding = #sdy.sharding<@m, [{"a", "b"}]>}) -> (tensor<16xf32> {sdy.sharding = #sdy.sharding<@m, [{"a", "c"}]>}) {
  %0 = sdy.manual_computation(%x) in_shardings=[<@m, [{"a", "b"}]>] out_shardings=[<@m, [{"a", "c"}]>] manual_axes={"a"} (%y: tensor<8xf32>) {
    %1 = stablehlo.negate %y {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"c"}]>]>} : tensor<8xf32>
    sdy.return %1 : tensor<8xf32>
  } : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

func.func @fully_manual(%x: tensor<16xf32> {sdy.sharding = #sdy.sharding<@m, [{"a", "b", "c"}]>}) -> (tensor<16xf32> {sdy.sharding = #sdy.sharding<@m, [{"a", "b", "c"}]>}) {
  %0 = sdy.manual_computation(%x) in_shardings=[<@m, [{"a", "b", "c"}]>] out_shardings=[<@m, [{"a", "b", "c"}]>] manual_axes={"a", "b", "c"} (%y: tensor<1xf32>) {
    %1 = stablehlo.negate %y : tensor<1xf32>
    sdy.return %1 : tensor<1xf32>
  } : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}
