sdy.mesh @m = <["a"=2, "b"=2, "c"=2]>

// Gather what the target no longer has.
func.func @gather(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a", "b"}, {}]>}) -> tensor<16x8xf32> {
  %0 = sdy.reshard %x <@m, [{"a"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// Slice locally where the target shards more.
func.func @slice(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {}]>}) -> tensor<16x8xf32> {
  %0 = sdy.reshard %x <@m, [{"a"}, {"b", "c"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// Move an axis from one dim to another.
func.func @move(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {"b"}]>}) -> tensor<16x8xf32> {
  %0 = sdy.reshard %x <@m, [{"a", "b"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// A reshard to the same layout goes away.
func.func @same(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) -> tensor<16x8xf32> {
  %0 = sdy.reshard %x <@m, [{"a"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
