sdy.mesh @m = <["a"=2, "b"=2]>

func.func @sort_pair(%k: tensor<8x16xi32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}, %v: tensor<8x16xf32>) -> (tensor<8x16xi32>, tensor<8x16xf32>) {
  %0:2 = "stablehlo.sort"(%k, %v) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<f32>):
      %1 = stablehlo.compare LT, %a, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
  }) {dimension = 0 : i64, is_stable = false} : (tensor<8x16xi32>, tensor<8x16xf32>) -> (tensor<8x16xi32>, tensor<8x16xf32>)
  return %0#0, %0#1 : tensor<8x16xi32>, tensor<8x16xf32>
}

func.func @rng_state_only(%s: tensor<2xui64> {sdy.sharding = #sdy.sharding<@m, [{"b"}]>}) -> (tensor<2xui64>, tensor<4x6xui32>) {
  %state, %bits = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x6xui32>)
  return %state, %bits : tensor<2xui64>, tensor<4x6xui32>
}
