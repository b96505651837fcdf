sdy.mesh @m = <["a"=2, "b"=2]>
func.func private @callee(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> attributes {sdy.original_func_name = "callee"} {
  %0 = sdy.func_data_flow_edge %arg0 : tensor<8x4xf32>
  %1 = stablehlo.negate %0 : tensor<8x4xf32>
  %2 = sdy.sharding_constraint %1 <@m, [{?}, {"b", ?}]> : tensor<8x4xf32>
  return %2 : tensor<8x4xf32>
}
func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}, %arg1: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %0 = call @callee(%arg0) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %1 = sdy.func_data_flow_edge %0 : tensor<8x4xf32>
  %2 = call @callee(%arg1) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %3 = sdy.func_data_flow_edge %2 : tensor<8x4xf32>
  return %1, %3 : tensor<8x4xf32>, tensor<8x4xf32>
}
