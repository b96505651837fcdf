// Where Shardy's convert-global-to-local fails, a located error (and
// nothing printed for that module): a dim its shards do not divide, a
// slice that cuts a sharded dim, a concatenation along a sharded dim.
sdy.mesh @m = <["a"=2, "b"=4]>
func.func @uneven(%arg0: tensor<6x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"b"}, {}]>}) -> tensor<6x8xf32> {
  return %arg0 : tensor<6x8xf32>
}

// -----

sdy.mesh @m = <["a"=2, "b"=4]>
func.func @cut(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) -> tensor<4x8xf32> {
  %0 = stablehlo.slice %arg0 [2:6, 0:8] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>]>} : (tensor<8x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

sdy.mesh @m = <["a"=2, "b"=4]>
func.func @concat(%arg0: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"b"}]>}) -> tensor<4x16xf32> {
  %0 = stablehlo.concatenate %arg0, %arg0, dim = 1 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}, {"b"}]>]>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

sdy.mesh @m = <["a"=2]>
func.func @fine(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}]>}) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}

// -----

sdy.mesh @m4 = <["a"=4]>
sdy.mesh @m2 = <["a"=2]>
func.func @meshes(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@m4, [{"a"}]>}) -> tensor<4xf32> {
  %0 = sdy.collective_permute %arg0 out_sharding=<@m2, [{"a"}]> : tensor<4xf32>
  return %0 : tensor<4xf32>
}
