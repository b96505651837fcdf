sdy.mesh @mesh = <["x"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
  %0 = sdy.propagation_barrier %arg0 allowed_direction=FORWARD : tensor<8xf32>
  %1 = sdy.propagation_barrier %0 allowed_direction=BACKWARD {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x", ?}]>]>} : tensor<8xf32>
  sdy.sharding_group %0 group_id = 11 : tensor<8xf32>
  sdy.sharding_group %1 group_id = 11 : tensor<8xf32>
  return %1 : tensor<8xf32>
}

func.func @generic(%a: tensor<4xf32>) -> tensor<4xf32> {
  "sdy.sharding_group"(%a) {group_id = 4 : i64} : (tensor<4xf32>) -> ()
  %0 = "sdy.propagation_barrier"(%a) {allowed_direction = #sdy<propagation_direction NONE>} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
