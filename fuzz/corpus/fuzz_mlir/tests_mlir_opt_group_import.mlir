func.func @disjoint(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  sdy.sharding_group %a group_id = 40 : tensor<4xf32>
  sdy.sharding_group %b group_id = 3 : tensor<4xf32>
  func.return
}


func.func @chain(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>, %d: tensor<4xf32>) {
  sdy.sharding_group %d group_id = 8 : tensor<4xf32>
  sdy.sharding_group %a group_id = 7 : tensor<4xf32>
  sdy.sharding_group %b group_id = 7 : tensor<4xf32>
  sdy.sharding_group %b group_id = 6 : tensor<4xf32>
  sdy.sharding_group %c group_id = 6 : tensor<4xf32>
  sdy.sharding_group %c group_id = 8 : tensor<4xf32>
  sdy.sharding_group %a group_id = 100 : tensor<4xf32>
  func.return
}
