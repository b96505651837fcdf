sdy.mesh @m = <["a"=2, "b"=4]>

func.func @barrier(%arg0: tensor<16xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}]>}) -> (tensor<16xf32> {sdy.sharding = #sdy.sharding<@m, [{"b"}]>}) {
  %0 = stablehlo.optimization_barrier %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"b"}]>]>} : tensor<16xf32>
  return %0 : tensor<16xf32>
}

func.func @loop(%arg0: tensor<16xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}]>}) -> (tensor<16xf32> {sdy.sharding = #sdy.sharding<@m, [{"b"}]>}) {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %c_0 = stablehlo.constant dense<1> : tensor<i32>
  %c_1 = stablehlo.constant dense<8> : tensor<i32>
  %0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_2 = %c) : tensor<16xf32>, tensor<i32> attributes {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"b"}]>, <@m, []>]>}
    cond {
    %1 = stablehlo.compare  LT, %iterArg_2, %c_1 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %1 = stablehlo.add %iterArg_2, %c_0 : tensor<i32>
    %2 = stablehlo.negate %iterArg {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}]>]>} : tensor<16xf32>
    stablehlo.return %2, %1 : tensor<16xf32>, tensor<i32>
  }
  return %0#0 : tensor<16xf32>
}

func.func @partial_manual(%arg0: tensor<16xf32> {sdy.sharding = #sdy.sharding<@m, [{}], unreduced={"a", "b"}>})
    -> (tensor<16xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}]>}) {
  %0 = sdy.manual_computation(%arg0)
    in_shardings=[<@m, [{"a"}], unreduced={"b"}>] out_shardings=[<@m, [{"a"}]>] manual_axes={"a"} (%arg1: tensor<8xf32>) {
    %1 = stablehlo.negate %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}], unreduced={"b"}>]>} : tensor<8xf32>
    sdy.return %1 : tensor<8xf32>
  } : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}
