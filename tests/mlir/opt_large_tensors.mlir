sdy.mesh @m = <["a"=4]>

func.func @f(%arg0: tensor<1099511627776x1024xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) -> tensor<1099511627776x1024xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<1099511627776x1024xf32>
  %0 = stablehlo.add %arg0, %c : tensor<1099511627776x1024xf32>
  return %0 : tensor<1099511627776x1024xf32>
}

// -----

func.func @g(%arg0: tensor<4611686018427387904xf32>) -> tensor<4611686018427387904xf32> {
  return %arg0 : tensor<4611686018427387904xf32>
}
