sdy.mesh @mesh = <["x"=4, "y"=2]>
func.func @main(%arg0: tensor<8x16xf32> {mhlo.sharding = "{devices=[2,4]<=[8]}"}, %arg1: tensor<8x16xf32> {mhlo.sharding = "{devices=[8,1]0,1,2,3,4,5,6,7}"}, %arg2: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>, mhlo.sharding = "{replicated}"}) -> tensor<8x16xf32> {
  %0 = stablehlo.add %arg0, %arg1 {mhlo.sharding = "{devices=[1,2,4]<=[8] last_tile_dim_replicate}"} : tensor<8x16xf32>
  %1 = stablehlo.add %0, %arg2 : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}
