sdy.mesh @m = <["a"=2, "b"=2, "c"=2]>

func.func @partial_sums(%arg0: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {}], unreduced={"a", "c"}>}, %arg1: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {}], unreduced={"a"}>}) -> (tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {}]>}) {
  %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@m, [{}, {}], unreduced={"a", "c"}>, <@m, [{}, {}], unreduced={"a"}>] out_shardings=[<@m, [{}, {}]>] manual_axes={"a"} (%arg2: tensor<16x4xf32>, %arg3: tensor<16x4xf32>) {
    %1 = stablehlo.add %arg2, %arg3 : tensor<16x4xf32>
    sdy.return %1 : tensor<16x4xf32>
  } : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}
