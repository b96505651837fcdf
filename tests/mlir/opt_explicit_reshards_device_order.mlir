sdy.mesh @r = <["a"=2, "b"=2]>
sdy.mesh @p = <["a"=2, "b"=2], device_ids=[3, 2, 1, 0]>
sdy.mesh @q = <["a"=4]>

func.func @tie_first_wins(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@r, [{"a"}]>}) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@p, [{"a"}]>}) {
  %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@p, [{"a"}]>]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

func.func @majority(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@r, [{"a"}, {}]>},
                    %arg1: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@p, [{}, {"b"}]>})
    -> (tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@p, [{"a"}, {"b"}]>}) {
  %0 = stablehlo.dot %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@p, [{"a"}, {"b"}]>]>} : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

func.func @replicated_does_not_count(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@r, [{}]>}, %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@r, [{}]>})
    -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@p, [{"b"}]>}) {
  %0 = stablehlo.add %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@p, [{"b"}]>]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

func.func @other_axes(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@r, [{"a"}]>}) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@q, [{"a"}]>}) {
  %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@q, [{"a"}]>]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
