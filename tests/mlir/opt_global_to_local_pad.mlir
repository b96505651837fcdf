sdy.mesh @m = <["a"=2, "b"=2]>

func.func @same_offset_everywhere(%arg0: tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) -> (tensor<8x9xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.pad %arg0, %zero, low = [0, 1], high = [0, 2], interior = [0, 0] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>]>} : (tensor<8x6xf32>, tensor<f32>) -> tensor<8x9xf32>
  return %0 : tensor<8x9xf32>
}

func.func @offset_per_device(%arg0: tensor<8x3xf32> {sdy.sharding = #sdy.sharding<@m, [{"b"}, {}]>}) -> (tensor<12x3xf32> {sdy.sharding = #sdy.sharding<@m, [{"b"}, {}]>}) {
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %0 = stablehlo.pad %arg0, %one, low = [2, 0], high = [2, 0], interior = [0, 0] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"b"}, {}]>]>} : (tensor<8x3xf32>, tensor<f32>) -> tensor<12x3xf32>
  return %0 : tensor<12x3xf32>
}
