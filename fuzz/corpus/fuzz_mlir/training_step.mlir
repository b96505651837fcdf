module @jit_train_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func public @main(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg1: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg2: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg3: tensor<64x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<32x64xf32> {jax.result_info = "[0]"}, tensor<64x8xf32> {jax.result_info = "[1]"}, tensor<f32> {jax.result_info = "[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %c_1 = stablehlo.constant dense<3> : tensor<i32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %cst_3 = stablehlo.constant dense<1.250000e-01> : tensor<f32>
    %cst_4 = stablehlo.constant dense<6.250000e-02> : tensor<f32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<16x64xf32>
    %0:4 = stablehlo.while(%iterArg = %c, %iterArg_6 = %arg2, %iterArg_7 = %arg3, %iterArg_8 = %cst) : tensor<i32>, tensor<32x64xf32>, tensor<64x8xf32>, tensor<f32>
     cond {
      %1 = stablehlo.compare  LT, %iterArg, %c_1,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = stablehlo.add %iterArg, %c_0 : tensor<i32>
      %2 = stablehlo.dot_general %arg0, %iterArg_6, contracting_dims = [1] x [0] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
      %3 = stablehlo.tanh %2 : tensor<16x64xf32>
      %4 = stablehlo.dot_general %3, %iterArg_7, contracting_dims = [1] x [0] : (tensor<16x64xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
      %5 = stablehlo.subtract %4, %arg1 : tensor<16x8xf32>
      %6 = stablehlo.multiply %5, %5 : tensor<16x8xf32>
      %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %7 = stablehlo.reduce(%6 init: %cst_9) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x8xf32>, tensor<f32>) -> tensor<f32>
      %8 = stablehlo.multiply %7, %cst_4 : tensor<f32>
      %9 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
      %10 = stablehlo.multiply %5, %9 : tensor<16x8xf32>
      %11 = stablehlo.dot_general %3, %10, contracting_dims = [0] x [0] : (tensor<16x64xf32>, tensor<16x8xf32>) -> tensor<64x8xf32>
      %12 = stablehlo.dot_general %10, %iterArg_7, contracting_dims = [1] x [1] : (tensor<16x8xf32>, tensor<64x8xf32>) -> tensor<16x64xf32>
      %13 = stablehlo.multiply %3, %3 : tensor<16x64xf32>
      %14 = stablehlo.subtract %cst_5, %13 : tensor<16x64xf32>
      %15 = stablehlo.multiply %12, %14 : tensor<16x64xf32>
      %16 = stablehlo.dot_general %arg0, %15, contracting_dims = [0] x [0] : (tensor<16x32xf32>, tensor<16x64xf32>) -> tensor<32x64xf32>
      %17 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
      %18 = stablehlo.multiply %16, %17 : tensor<32x64xf32>
      %19 = stablehlo.subtract %iterArg_6, %18 : tensor<32x64xf32>
      %20 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
      %21 = stablehlo.multiply %11, %20 : tensor<64x8xf32>
      %22 = stablehlo.subtract %iterArg_7, %21 : tensor<64x8xf32>
      stablehlo.return %1, %19, %22, %8 : tensor<i32>, tensor<32x64xf32>, tensor<64x8xf32>, tensor<f32>
    }
    return %0#1, %0#2, %0#3 : tensor<32x64xf32>, tensor<64x8xf32>, tensor<f32>
  }
}
