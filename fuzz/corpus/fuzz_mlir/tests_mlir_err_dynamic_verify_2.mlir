sdy.mesh @mesh = <["x"=4, "y"=2]>
func.func @dynamic_rank(%arg0: tensor<?x4x?xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<?x4x?xf32> {
  return %arg0 : tensor<?x4x?xf32>
}
