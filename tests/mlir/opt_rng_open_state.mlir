// A result propagation leaves unsharded beside a sharded sibling prints
// fully open (`[{?}]`), as Shardy gives an op's other results when it sets
// one; rng_bit_generator's results print with the names MLIR gives them.
sdy.mesh @m = <["a"=2, "b"=2]>
func.func @f(%state: tensor<2xui64>) -> (tensor<4x1000xui32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {"b"}]>}) {
  %s, %bits = stablehlo.rng_bit_generator %state, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x1000xui32>)
  return %bits : tensor<4x1000xui32>
}
