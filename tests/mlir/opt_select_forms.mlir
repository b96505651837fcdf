sdy.mesh @m = <["a"=4, "b"=2]>

func.func @same_types(%p: tensor<4x8xi1>, %t: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}, %f: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = stablehlo.select %p, %t, %f : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

func.func @scalar_predicate(%p: tensor<i1>, %t: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}, %f: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = stablehlo.select %p, %t, %f : tensor<i1>, tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
