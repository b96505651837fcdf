sdy.mesh @m = <["a"=2, "b"=2]>
func.func @f(%arg0: tensor<i32>, %arg1: tensor<4xi64> {sdy.sharding = #sdy.sharding<@m, [{"a"}]>}, %arg2: tensor<4xi64>) -> tensor<4xi64> {
  %0 = "stablehlo.case"(%arg0) ({
    stablehlo.return %arg1 : tensor<4xi64>
  }, {
    stablehlo.return %arg2 : tensor<4xi64>
  }) : (tensor<i32>) -> tensor<4xi64>
  %1 = sdy.data_flow_edge %0 : tensor<4xi64>
  return %1 : tensor<4xi64>
}
