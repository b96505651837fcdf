// A maximal mesh has no axes: a sharding on it is `[]`, with no dims,
// replicated or unreduced axes (Shardy's verifier message).
sdy.mesh @maximal = <[], device_ids=[3]>
func.func @main(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@maximal, [{}]>}) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
