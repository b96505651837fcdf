sdy.mesh @m = <["a"=2, "b"=2]>

func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>},
                %arg1: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"b"}, {}]>}) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %0 = call @scale(%arg0) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %1 = call @twice(%arg1) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0, %1 : tensor<8x4xf32>, tensor<8x4xf32>
}

func.func private @twice(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = call @scale(%arg0) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %1 = call @scale(%0) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %2 = sdy.sharding_constraint %1 <@m, [{"b"}, {}]> : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

func.func private @scale(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

func.func private @unused(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
  return %arg0 : tensor<8x4xf32>
}
