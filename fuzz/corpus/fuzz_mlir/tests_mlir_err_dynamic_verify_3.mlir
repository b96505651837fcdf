sdy.mesh @mesh = <["x"=4, "y"=2]>
func.func @dynamic_overlap(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = stablehlo.multiply %arg0, %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x":(1)2}, {"y"}], replicated={"x"}>]>} : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
