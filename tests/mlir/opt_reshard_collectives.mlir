sdy.mesh @m = <["a"=2, "b"=2, "c"=2]>
sdy.mesh @m_reversed = <["a"=2, "b"=2, "c"=2], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>
sdy.mesh @n = <["p"=4, "q"=2]>
sdy.mesh @one = <[], device_ids=[2]>

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

// Axes of sizes 4 and 2 swap dims: a collective-permute, then an all-to-all.
func.func @swap(%x: tensor<32x8xf32> {sdy.sharding = #sdy.sharding<@n, [{"p"}, {"q"}]>}) -> tensor<32x8xf32> {
  %0 = sdy.reshard %x <@n, [{"q"}, {"p"}]> : tensor<32x8xf32>
  return %0 : tensor<32x8xf32>
}

// Axes bound for another dim in the wrong order are reordered first.
func.func @reorder(%x: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@m, [{"b", "a"}, {}]>}) -> tensor<8x16xf32> {
  %0 = sdy.reshard %x <@m, [{}, {"a", "b"}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// The target's next axes are sliced on the source dim, then all move.
func.func @slice_then_move(%x: tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@m, [{"c"}, {}]>}) -> tensor<8x32xf32> {
  %0 = sdy.reshard %x <@m, [{}, {"c", "a"}]> : tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// Another device order: one collective-permute onto the target's mesh.
func.func @devices(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) -> tensor<16x8xf32> {
  %0 = sdy.reshard %x <@m_reversed, [{}, {"a"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// A replicated target is gathered on the source's mesh.
func.func @replicated_elsewhere(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) -> tensor<16x8xf32> {
  %0 = sdy.reshard %x <@m_reversed, [{}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// Unreduced axes stay on every collective.
func.func @unreduced(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}], unreduced={"c"}>}) -> tensor<16x8xf32> {
  %0 = sdy.reshard %x <@m, [{}, {"a"}], unreduced={"c"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// A barrier's input is resharded; a while's argument has the while's sharding.
func.func @through(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}, %p: tensor<i1>) -> tensor<16x8xf32> {
  %0 = sdy.propagation_barrier %x allowed_direction=FORWARD : tensor<16x8xf32>
  %1 = sdy.reshard %0 <@m, [{}, {}]> : tensor<16x8xf32>
  %2 = stablehlo.while(%it = %x) : tensor<16x8xf32>
    attributes {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>]>}
    cond {
    stablehlo.return %p : tensor<i1>
  } do {
    %3 = sdy.reshard %it <@m, [{}, {"a"}]> : tensor<16x8xf32>
    stablehlo.return %3 : tensor<16x8xf32>
  }
  %4 = stablehlo.add %1, %2 : tensor<16x8xf32>
  return %4 : tensor<16x8xf32>
}

// A reshard from or to a maximal mesh stays.
func.func @maximal(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@one, []>}) -> tensor<16x8xf32> {
  %0 = sdy.reshard %x <@m, [{}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
