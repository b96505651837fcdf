// Explicit sharding (seed 004, "Explicit sharding"; samples/
// matmul_explicit_out_sharding.shir): on a mesh made with
//   jax.make_mesh((4, 2), ('X', 'Y'), axis_types=(Explicit, Explicit))
//   @jax.jit
//   def f(a, b):
//     c = jnp.dot(a, b, out_sharding=P('X', None))
//     return jnp.sin(c) * c
// every value's sharding is part of its type. Both operands shard the
// contracting dim on "Y": only the dot's out_sharding says where the
// result goes, and the partitioner sums the partial products over "Y";
// sin and multiply keep P('X', None). The sdy mesh does not record axis types
// and StableHLO has no out_sharding: shardc reads JAX's Explicit axes from
// the mesh op's shardc.explicit_axes and the dot's out_sharding from its
// shardc.out_sharding (docs/mlir.md), as --emit=sdy prints them.
module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["X"=4, "Y"=2]> {shardc.explicit_axes = ["X", "Y"]}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {"Y"}]>}, %arg1: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"Y"}, {}]>}) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] {shardc.out_sharding = #sdy.sharding<@mesh, [{"X"}, {}]>} : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %1 = stablehlo.sine %0 : tensor<8x4xf32>
    %2 = stablehlo.multiply %1, %0 : tensor<8x4xf32>
    return %2 : tensor<8x4xf32>
  }
}
