sdy.mesh @mesh = <["a"=2, "b"=2]>

func.func @barrier_backward(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}, {"b", ?}]>}) -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}, {?}]>}) {
  %0 = stablehlo.negate %arg0 : tensor<8x8xf32>
  %1 = sdy.propagation_barrier %0 allowed_direction=BACKWARD : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

func.func @group_across_barrier(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}, {?}]>}, %arg1: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = stablehlo.abs %arg0 : tensor<8x8xf32>
  %1 = sdy.propagation_barrier %arg1 allowed_direction=NONE : tensor<8x8xf32>
  %2 = stablehlo.exponential %1 : tensor<8x8xf32>
  sdy.sharding_group %0 group_id = 21 : tensor<8x8xf32>
  sdy.sharding_group %2 group_id = 21 : tensor<8x8xf32>
  return %0, %2 : tensor<8x8xf32>, tensor<8x8xf32>
}

func.func @seeded_closed(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>}) -> tensor<8x8xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<8x8xf32>
  sdy.sharding_group %arg0 group_id = 3 : tensor<8x8xf32>
  sdy.sharding_group %0 group_id = 3 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
