sdy.mesh @m = <["a"=2, "b"=2]>

// @scale is called three times: from @main on %arg0 ("a" on dim 0), and
// twice from @twice on %arg1 ("b" on dim 0). Each call site propagates on
// its own copy; the copies with the same shardings become one function.
// @unused is private and called by nobody; the constraint %2 in @twice
// is used by nothing and goes.
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
