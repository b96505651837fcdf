module @jit_mlp attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func public @main(%arg0: tensor<16x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg1: tensor<1024x4096xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg2: tensor<4096xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, %arg3: tensor<4096x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg4: tensor<1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> (tensor<16x1024xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x1024xf32>, tensor<1024x4096xf32>) -> tensor<16x4096xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<4096xf32>) -> tensor<16x4096xf32>
    %2 = stablehlo.add %0, %1 : tensor<16x4096xf32>
    %3 = stablehlo.multiply %2, %2 : tensor<16x4096xf32>
    %4 = stablehlo.multiply %3, %2 : tensor<16x4096xf32>
    %cst = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x4096xf32>
    %6 = stablehlo.multiply %5, %4 : tensor<16x4096xf32>
    %7 = stablehlo.add %2, %6 : tensor<16x4096xf32>
    %cst_0 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x4096xf32>
    %9 = stablehlo.multiply %8, %7 : tensor<16x4096xf32>
    %10 = stablehlo.tanh %9 : tensor<16x4096xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x4096xf32>
    %12 = stablehlo.add %11, %10 : tensor<16x4096xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16x4096xf32>
    %14 = stablehlo.multiply %13, %12 : tensor<16x4096xf32>
    %15 = stablehlo.multiply %2, %14 : tensor<16x4096xf32>
    %16 = stablehlo.dot_general %15, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x4096xf32>, tensor<4096x1024xf32>) -> tensor<16x1024xf32>
    %17 = stablehlo.broadcast_in_dim %arg4, dims = [1] : (tensor<1024xf32>) -> tensor<16x1024xf32>
    %18 = stablehlo.add %16, %17 : tensor<16x1024xf32>
    return %18 : tensor<16x1024xf32>
  }
}
