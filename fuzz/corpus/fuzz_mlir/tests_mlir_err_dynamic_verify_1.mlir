sdy.mesh @mesh = <["x"=4, "y"=2]>
func.func @unranked_sharded(%arg0: tensor<*xf32> {sdy.sharding = #sdy.sharding<@mesh, []>}) -> tensor<*xf32> {
  return %arg0 : tensor<*xf32>
}
