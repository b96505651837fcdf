sdy.mesh @a = <["x"=2]>
sdy.mesh @b = <["y"=2]>
func.func @main(%arg0: tensor<4xf32>) -> tensor<8xf32> {
  %0 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
