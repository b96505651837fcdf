module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["X"=4, "Y"=2]> {shardc.explicit_axes = ["X", "Y"]}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {"Y"}]>}, %arg1: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"Y"}, {}]>}) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] {shardc.out_sharding = #sdy.sharding<@mesh, [{"X"}, {}]>} : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %1 = stablehlo.sine %0 : tensor<8x4xf32>
    %2 = stablehlo.multiply %1, %0 : tensor<8x4xf32>
    return %2 : tensor<8x4xf32>
  }
}
