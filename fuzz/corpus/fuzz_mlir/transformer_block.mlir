module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=2]>
  func.func public @main(%arg0: tensor<4x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {}]>}, %arg1: tensor<16x2x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}, %arg2: tensor<16x2x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}, %arg3: tensor<16x2x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}, %arg4: tensor<2x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}, {}]>}, %arg5: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg6: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg7: tensor<16x2x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}, %arg8: tensor<16x2x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}, %arg9: tensor<16x2x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}, %arg10: tensor<2x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}, {}]>}, %arg11: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg12: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<4x8x16xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x2x8xf32>) -> tensor<4x8x2x8xf32>
    %1 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x2x8xf32>) -> tensor<4x8x2x8xf32>
    %2 = stablehlo.dot_general %arg0, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x2x8xf32>) -> tensor<4x8x2x8xf32>
    %cst = stablehlo.constant dense<0.353553385> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8x2x8xf32>
    %4 = stablehlo.multiply %0, %3 : tensor<4x8x2x8xf32>
    %5 = stablehlo.dot_general %4, %1, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %6 = stablehlo.reduce(%5 init: %cst_0) applies stablehlo.maximum across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x8xf32>
    %8 = stablehlo.subtract %5, %7 : tensor<4x2x8x8xf32>
    %9 = stablehlo.exponential %8 : tensor<4x2x8x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_1) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x8xf32>
    %12 = stablehlo.divide %9, %11 : tensor<4x2x8x8xf32>
    %13 = stablehlo.dot_general %12, %2, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %14 = stablehlo.dot_general %13, %arg4, contracting_dims = [1, 3] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<2x8x16xf32>) -> tensor<4x8x16xf32>
    %15 = stablehlo.add %arg0, %14 : tensor<4x8x16xf32>
    %16 = stablehlo.dot_general %15, %arg5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x32xf32>) -> tensor<4x8x32xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x8x32xf32>
    %18 = stablehlo.maximum %16, %17 : tensor<4x8x32xf32>
    %19 = stablehlo.dot_general %18, %arg6, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x32xf32>, tensor<32x16xf32>) -> tensor<4x8x16xf32>
    %20 = stablehlo.add %15, %19 : tensor<4x8x16xf32>
    %21 = stablehlo.dot_general %20, %arg7, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x2x8xf32>) -> tensor<4x8x2x8xf32>
    %22 = stablehlo.dot_general %20, %arg8, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x2x8xf32>) -> tensor<4x8x2x8xf32>
    %23 = stablehlo.dot_general %20, %arg9, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x2x8xf32>) -> tensor<4x8x2x8xf32>
    %cst_3 = stablehlo.constant dense<0.353553385> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x8x2x8xf32>
    %25 = stablehlo.multiply %21, %24 : tensor<4x8x2x8xf32>
    %26 = stablehlo.dot_general %25, %22, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x8x2x8xf32>, tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %cst_4 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %27 = stablehlo.reduce(%26 init: %cst_4) applies stablehlo.maximum across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x8xf32>
    %29 = stablehlo.subtract %26, %28 : tensor<4x2x8x8xf32>
    %30 = stablehlo.exponential %29 : tensor<4x2x8x8xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %31 = stablehlo.reduce(%30 init: %cst_5) applies stablehlo.add across dimensions = [3] : (tensor<4x2x8x8xf32>, tensor<f32>) -> tensor<4x2x8xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0, 1, 2] : (tensor<4x2x8xf32>) -> tensor<4x2x8x8xf32>
    %33 = stablehlo.divide %30, %32 : tensor<4x2x8x8xf32>
    %34 = stablehlo.dot_general %33, %23, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<4x8x2x8xf32>) -> tensor<4x2x8x8xf32>
    %35 = stablehlo.dot_general %34, %arg10, contracting_dims = [1, 3] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x2x8x8xf32>, tensor<2x8x16xf32>) -> tensor<4x8x16xf32>
    %36 = stablehlo.add %20, %35 : tensor<4x8x16xf32>
    %37 = stablehlo.dot_general %36, %arg11, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x16xf32>, tensor<16x32xf32>) -> tensor<4x8x32xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x8x32xf32>
    %39 = stablehlo.maximum %37, %38 : tensor<4x8x32xf32>
    %40 = stablehlo.dot_general %39, %arg12, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8x32xf32>, tensor<32x16xf32>) -> tensor<4x8x16xf32>
    %41 = stablehlo.add %36, %40 : tensor<4x8x16xf32>
    return %41 : tensor<4x8x16xf32>
  }
}
