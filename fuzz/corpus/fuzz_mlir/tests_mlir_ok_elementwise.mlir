func.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<4x8xi32>, %arg3: tensor<4x8xi1>) -> (tensor<4x8xf32>, tensor<4x8xi32>, tensor<4x8xf32>) {
  %0 = stablehlo.negate %arg0 : tensor<4x8xf32>
  %1 = stablehlo.abs %0 : tensor<4x8xf32>
  %2 = stablehlo.exponential %1 : tensor<4x8xf32>
  %3 = stablehlo.log %2 : tensor<4x8xf32>
  %4 = stablehlo.tanh %3 : tensor<4x8xf32>
  %5 = stablehlo.sine %4 : tensor<4x8xf32>
  %6 = stablehlo.cosine %5 : tensor<4x8xf32>
  %7 = stablehlo.sqrt %6 : tensor<4x8xf32>
  %8 = stablehlo.rsqrt %7 : tensor<4x8xf32>
  %9 = stablehlo.logistic %8 : tensor<4x8xf32>
  %10 = stablehlo.add %9, %arg1 : tensor<4x8xf32>
  %11 = stablehlo.subtract %10, %arg1 : tensor<4x8xf32>
  %12 = stablehlo.multiply %11, %arg1 : tensor<4x8xf32>
  %13 = stablehlo.divide %12, %arg1 : tensor<4x8xf32>
  %14 = stablehlo.maximum %13, %arg1 : tensor<4x8xf32>
  %15 = stablehlo.minimum %14, %arg1 : tensor<4x8xf32>
  %16 = stablehlo.power %15, %arg1 : tensor<4x8xf32>
  %17 = stablehlo.select %arg3, %16, %arg0 : tensor<4x8xi1>, tensor<4x8xf32>
  %18 = stablehlo.convert %17 : (tensor<4x8xf32>) -> tensor<4x8xi32>
  %19 = stablehlo.add %18, %arg2 : tensor<4x8xi32>
  %20 = "stablehlo.multiply"(%arg0, %arg1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %21 = stablehlo.exponential %20 {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<DEFAULT>>} : tensor<4x8xf32>
  return %17, %19, %21 : tensor<4x8xf32>, tensor<4x8xi32>, tensor<4x8xf32>
}
