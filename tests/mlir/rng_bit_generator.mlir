// stablehlo.rng_bit_generator read in its custom form (`algorithm =
// DEFAULT`, as Shardy's registry test and JAX print it) and its generic
// form (#stablehlo<rng_algorithm THREE_FRY>), printed back in the custom
// form; the bits sharded over "x" print as the partitioner's per-device
// op in the generic "shardc.rng_bit_generator" form (global_shape and the
// block's starts have no StableHLO spelling).
sdy.mesh @m = <["x"=2]>
func.func @main(%arg0: tensor<2xui64>) -> (tensor<4x1000xui32>, tensor<2xui64>, tensor<3xi64>) {
  %output_state, %output = stablehlo.rng_bit_generator %arg0, algorithm =  DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x1000xui32>)
  %1 = sdy.sharding_constraint %output <@m, [{"x"}, {}]> : tensor<4x1000xui32>
  %2:2 = "stablehlo.rng_bit_generator"(%output_state) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xi64>)
  return %1, %2#0, %2#1 : tensor<4x1000xui32>, tensor<2xui64>, tensor<3xi64>
}
