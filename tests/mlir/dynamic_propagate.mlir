// Propagation skips dynamic and unranked values as Shardy's does
// (propagateFuncResults): a returned dynamic argument gives its sharding
// to no result, a result's sharding to no argument, and a dynamic value
// nothing reached stays without one (static ones are closed replicated).
sdy.mesh @mesh = <["x"=2, "y"=2]>

func.func @main(%arg0: tensor<?x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
                %arg1: tensor<8x?xf32>, %arg2: tensor<*xf32>, %arg3: tensor<8x8xf32>)
    -> (tensor<?x8xf32>, tensor<8x?xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y", ?}, {?}]>}, tensor<*xf32>,
        tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) {
  %0 = stablehlo.negate %arg3 : tensor<8x8xf32>
  return %arg0, %arg1, %arg2, %0 : tensor<?x8xf32>, tensor<8x?xf32>, tensor<*xf32>, tensor<8x8xf32>
}
