// A sharding must name a declared mesh.
func.func @main(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<mesh<["x"=2]>, [{"x"}]>}) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
