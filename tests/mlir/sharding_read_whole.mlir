// The scanner reads a sharding in its common form whole, on one line
// (src/mlir/parse_sdy_fast.c); any other spelling goes token by token
// through the grammar. Both give the same program: %a's and %b's
// arguments and results carry the same shardings, written both ways
// (sub-axes, open dims, priorities, a #sdy.sharding inside a per-value
// list, spaces and tabs; then line breaks and a comment).
sdy.mesh @mesh = <["a"=4, "b"=2]>
func.func @whole(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a":(1)2, "b"}, {?}]>}) -> tensor<8x8xf32> {
  %0 = stablehlo.add %x, %x {sdy.sharding = #sdy.sharding_per_value<[ <@mesh , [ {"a", ?}p1 ,	{?}p0 ] > ]>} : tensor<8x8xf32>
  %1:2 = stablehlo.optimization_barrier %0, %0 {sdy.sharding = #sdy.sharding_per_value<[#sdy.sharding<@mesh, [{"b"}, {"a":(2)2, ?}]>, <@mesh, []>]>} : tensor<8x8xf32>, tensor<8x8xf32>
  return %1#0 : tensor<8x8xf32>
}
func.func @split(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a":(1)2,
                                                                           "b"}, {?}]>}) -> tensor<8x8xf32> {
  %0 = stablehlo.add %x, %x {sdy.sharding = #sdy.sharding_per_value<[ <@mesh , [ {"a", ?}p1 , // a comment
                                                                                {?}p0 ] > ]>} : tensor<8x8xf32>
  %1:2 = stablehlo.optimization_barrier %0, %0 {sdy.sharding = #sdy.sharding_per_value<[#sdy.sharding<@mesh, [{"b"},
     {"a":(2)2, ?}]>, <@mesh, []>]>} : tensor<8x8xf32>, tensor<8x8xf32>
  return %1#0 : tensor<8x8xf32>
}
