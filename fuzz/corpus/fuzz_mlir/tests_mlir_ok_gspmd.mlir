module @jit_f attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32> {mhlo.sharding = "{devices=[2,2]<=[4]}"}, %arg1: tensor<8x16xf32> {mhlo.sharding = "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}"}, %arg2: tensor<8xf32> {mhlo.sharding = "{replicated}"}, %arg3: tensor<8x16xf32> {mhlo.sharding = "{devices=[4,1]<=[2,2]T(1,0)}"}, %arg4: tensor<8xf32> {mhlo.sharding = "{maximal device=0}"}) -> (tensor<8x16xf32> {jax.result_info = "", mhlo.sharding = "{devices=[1,4]0,1,2,3}"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<8x16xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {mhlo.sharding = "{devices=[4,1]0,1,2,3}"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %1 : tensor<8x16xf32>
  }
}
