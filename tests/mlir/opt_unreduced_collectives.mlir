sdy.mesh @m = <["a"=2, "b"=4, "c"=2]>

func.func @to_unreduced_replicated(%arg0: tensor<6x4xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"c"}]>})
    -> (tensor<6x4xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"c"}], unreduced={"a"}>}) {
  return %arg0 : tensor<6x4xf32>
}

func.func @to_unreduced_sharded(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"c", "b"}, {"a"}]>})
    -> tensor<8x8xf32> {
  %0 = sdy.reshard %arg0 <@m, [{"c"}, {}], unreduced={"a", "b"}> : tensor<8x8xf32>
  %1 = stablehlo.negate %0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"c"}, {}], unreduced={"a", "b"}>]>} : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

func.func @to_unreduced_sub_axis(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"b"}, {}]>})
    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"b":(1)2}, {}], unreduced={"b":(2)2, "c"}>}) {
  return %arg0 : tensor<8x8xf32>
}

func.func @to_unreduced_after_reshard(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>})
    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"b"}], unreduced={"a", "c"}>}) {
  %0 = sdy.reshard %arg0 <@m, [{}, {"b"}], unreduced={"a", "c"}> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

func.func @no_sharding_to_unreduced(%arg0: tensor<8x8xf32>)
    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {}], unreduced={"c"}>}) {
  return %arg0 : tensor<8x8xf32>
}
