// GSPMD shardings shardc cannot map onto an sdy mesh.
sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%arg0: tensor<4x4xf32> {mhlo.sharding = "{manual}"},
                %arg1: tensor<4x4xf32> {mhlo.sharding = "{devices=[2,2]0,3,1,2}"},
                %arg2: tensor<4x4xf32> {mhlo.sharding = "{devices=[2,2,1]<=[4]}"},
                %arg3: tensor<4x4xf32> {mhlo.sharding = "{maximal device=-2}"},
                %arg4: tensor<4x4xf32> {mhlo.sharding = "{devices=[2,4]<=[8]}"},
                %arg5: tensor<4x4xf32> {mhlo.sharding = "{devices=[2,2]<=[4] last_tile_dims={manual}}"},
                %arg6: tensor<4x4xf32> {mhlo.sharding = "{tiles}"}) -> tensor<4x4xf32> {
  return %arg0 : tensor<4x4xf32>
}
