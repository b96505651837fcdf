// PHILOX verifies (StableHLO allows it) but shardc does not compute it:
// `shardc run` reports it at the op.
func.func @main(%arg0: tensor<2xui64>) -> (tensor<2xui64>, tensor<8xui32>) {
  %0:2 = "stablehlo.rng_bit_generator"(%arg0) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<8xui32>)
  return %0#0, %0#1 : tensor<2xui64>, tensor<8xui32>
}
