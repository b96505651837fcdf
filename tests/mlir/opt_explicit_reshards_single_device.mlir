sdy.mesh @dev2 = <[], device_ids=[2]>
sdy.mesh @grid = <["a"=2, "b"=2]>
sdy.mesh @other = <["c"=4]>

func.func @sharded_in_sharded_out(%x: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@grid, [{}, {"b"}]>}, %y: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@grid, [{"a"}, {}]>}) -> (tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@grid, [{"a"}, {}]>}) {
  %0 = stablehlo.custom_call @on_device(%x) {sdy.sharding = #sdy.sharding_per_value<[<@dev2, []>]>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = stablehlo.multiply %0, %y {sdy.sharding = #sdy.sharding_per_value<[<@grid, [{"a"}, {}]>]>} : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

func.func @replicated_elsewhere(%x: tensor<6xf32> {sdy.sharding = #sdy.sharding<@other, [{}]>}, %t: !stablehlo.token) -> (tensor<6xf32>, tensor<6xf32> {sdy.sharding = #sdy.sharding<@grid, [{"b"}]>}, !stablehlo.token) {
  %0:3 = stablehlo.custom_call @two_and_token(%x, %t) {sdy.sharding = #sdy.sharding_per_value<[<@dev2, []>, <@grid, [{"b"}]>, <@grid, []>]>} : (tensor<6xf32>, !stablehlo.token) -> (tensor<6xf32>, tensor<6xf32>, !stablehlo.token)
  return %0#0, %0#1, %0#2 : tensor<6xf32>, tensor<6xf32>, !stablehlo.token
}
