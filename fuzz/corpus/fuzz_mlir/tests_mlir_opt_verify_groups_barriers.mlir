func.func @both(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sdy.propagation_barrier %a allowed_direction=BOTH : tensor<8xf32>
  return %0 : tensor<8xf32>
}


func.func @shapes(%a: tensor<8xf32>, %b: tensor<2x4xf32>) {
  sdy.sharding_group %a group_id = 5 : tensor<8xf32>
  sdy.sharding_group %b group_id = 5 : tensor<2x4xf32>
  func.return
}
