module @jit_count attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["batch"=2, "col"=2]>
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"batch"}, {"col"}]>}, %arg1: tensor<f32> {sdy.sharding = #sdy.sharding<@mesh, []>}) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @count_at_least_step(%arg0, %arg1) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [])->([i, k]) {i=8, j=16, k=4}, custom>, shardc.partition = @count_at_least_step_partition} : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
  func.func private @count_at_least_step(%arg0: tensor<8x16xf32>, %arg1: tensor<f32>) -> tensor<8x4xf32> {
    %0 = stablehlo.iota dim = 0 : tensor<4xi32>
    %1 = stablehlo.convert %0 : (tensor<4xi32>) -> tensor<4xf32>
    %2 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %3 = stablehlo.multiply %1, %2 : tensor<4xf32>
    %4 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x4xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [2] : (tensor<4xf32>) -> tensor<8x16x4xf32>
    %6 = stablehlo.compare  GE, %4, %5,  FLOAT : (tensor<8x16x4xf32>, tensor<8x16x4xf32>) -> tensor<8x16x4xi1>
    %7 = stablehlo.convert %6 : (tensor<8x16x4xi1>) -> tensor<8x16x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%7 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x16x4xf32>, tensor<f32>) -> tensor<8x4xf32>
    return %8 : tensor<8x4xf32>
  }
  func.func private @count_at_least_step_partition(%arg0: tensor<4x8xf32>, %arg1: tensor<f32>) -> tensor<4x4xf32> {
    %0 = stablehlo.iota dim = 0 : tensor<4xi32>
    %1 = stablehlo.convert %0 : (tensor<4xi32>) -> tensor<4xf32>
    %2 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %3 = stablehlo.multiply %1, %2 : tensor<4xf32>
    %4 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x4xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [2] : (tensor<4xf32>) -> tensor<4x8x4xf32>
    %6 = stablehlo.compare  GE, %4, %5,  FLOAT : (tensor<4x8x4xf32>, tensor<4x8x4xf32>) -> tensor<4x8x4xi1>
    %7 = stablehlo.convert %6 : (tensor<4x8x4xi1>) -> tensor<4x8x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%7 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x8x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    %9 = "stablehlo.all_reduce"(%8) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %10 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %10 : tensor<f32>
    }) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %9 : tensor<4x4xf32>
  }
}
