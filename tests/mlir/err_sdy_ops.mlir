// Shardy's collectives: read, but only shardc opt -sdy-convert-global-to-local takes them.
sdy.mesh @mesh = <["x"=2]>
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = sdy.all_slice [{"x"}] %arg0 out_sharding=<@mesh, [{"x"}]> : tensor<4xf32>
  %1 = sdy.all_gather [{"x"}] %0 out_sharding=<@mesh, [{}]> : tensor<4xf32>
  return %1 : tensor<4xf32>
}
