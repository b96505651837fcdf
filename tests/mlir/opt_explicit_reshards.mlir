sdy.mesh @m = <["a"=4, "b"=2]>

// A matmul whose rhs is sharded on the contracting dim by "b" but whose lhs
// is not: the larger lhs keeps its layout, rhs is resharded, and the
// partial sums over "b" are all-reduced.
func.func @matmul(%x: tensor<64x32xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {"b"}]>},
                  %w: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"a"}]>})
    -> (tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>]>} : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}

// Elementwise, operands sharded on different dims: each axis goes to the
// factor it shards, so both operands and the result take both axes.
func.func @add(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>},
               %y: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"b"}]>})
    -> (tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) {
  %0 = stablehlo.add %x, %y {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>]>} : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// A unary op keeps the layout of its larger (else more sharded) tensor,
// here the operand's; its result is resharded back to what it had.
func.func @transpose(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {"b"}]>})
    -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"b"}]>}) {
  %0 = stablehlo.transpose %x, dims = [1, 0] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}, {"b"}]>]>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// A returned value not sharded as the function's result.
func.func @return_differs(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>})
    -> (tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"b"}]>}) {
  return %x : tensor<16x8xf32>
}

// A reduction over a sharded dim: all-reduced after the op, which stays
// unsharded as it was.
func.func @reduce(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) -> tensor<8xf32> {
  %c = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0] : (tensor<16x8xf32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
