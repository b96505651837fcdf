// Maximal meshes name one device, any device (Shardy's mesh_parse_print):
// @maximal_mesh_3 as written, and a GSPMD {maximal device=2} on the
// @maximal_mesh_2 the import makes for it. Their shardings are `[]`.
sdy.mesh @maximal_mesh_3 = <[], device_ids=[3]>
func.func @main(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@maximal_mesh_3, []>},
                %arg1: tensor<4xf32> {mhlo.sharding = "{maximal device=2}"}) -> tensor<4xf32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
