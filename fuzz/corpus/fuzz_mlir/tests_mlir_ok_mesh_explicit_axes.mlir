sdy.mesh @mesh = <["dp"=4, "mp"=2]> {shardc.explicit_axes = ["mp"]}
func.func @main(%a: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {"mp"}]>}) -> tensor<8x4xf32> {
  %0 = stablehlo.sine %a : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
