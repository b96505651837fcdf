sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}], unreduced={"y"}>}) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
