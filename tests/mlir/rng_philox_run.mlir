// stablehlo.rng_bit_generator with PHILOX (JAX's rbg PRNG on CPU lowers
// to it) on a u64[3] and a u64[2] state, with 32- and 8-bit bits sharded
// over "x"=2 (5 rows uneven), runs and matches its one-device run.
sdy.mesh @m = <["x"=2]>
func.func @main(%arg0: tensor<3xui64>, %arg1: tensor<2xui64>) -> (tensor<3xui64>, tensor<8x4xui32>, tensor<2xui64>, tensor<5x3xi8>) {
  %0:2 = "stablehlo.rng_bit_generator"(%arg0) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<3xui64>) -> (tensor<3xui64>, tensor<8x4xui32>)
  %1 = sdy.sharding_constraint %0#1 <@m, [{"x"}, {}]> : tensor<8x4xui32>
  %2:2 = stablehlo.rng_bit_generator %arg1, algorithm =  PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<5x3xi8>)
  %3 = sdy.sharding_constraint %2#1 <@m, [{"x"}, {}]> : tensor<5x3xi8>
  return %0#0, %1, %2#0, %3 : tensor<3xui64>, tensor<8x4xui32>, tensor<2xui64>, tensor<5x3xi8>
}
