sdy.mesh @mesh = <["a"=2, "b"=2]>
func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"b"}, {?}], replicated={"a"}>}, %arg1: tensor<i64> {sdy.sharding = #sdy.sharding<@mesh, [], replicated={"a"}>}) -> (tensor<8x8xf32>, tensor<i64>) {
  %0 = stablehlo.negate %arg0 : tensor<8x8xf32>
  return %0, %arg1 : tensor<8x8xf32>, tensor<i64>
}
