// Verifier errors of sdy.propagation_barrier and sdy.sharding_group, in
// the words Shardy's -verify-diagnostics annotations expect.
func.func @both(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{cannot specify `BOTH` as the direction}}
  %0 = sdy.propagation_barrier %a allowed_direction=BOTH : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @shapes(%a: tensor<8xf32>, %b: tensor<2x4xf32>) {
  sdy.sharding_group %a group_id = 5 : tensor<8xf32>
  // expected-error @+1 {{ShardingGroupOps values must have the same shape for groupId: 5}}
  sdy.sharding_group %b group_id = 5 : tensor<2x4xf32>
  func.return
}
