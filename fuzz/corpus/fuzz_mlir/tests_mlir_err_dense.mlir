func.func @main() -> (tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xi1>) {
  %cst = stablehlo.constant dense<"0x0000803F00"> : tensor<2xf32>
  %c = stablehlo.constant dense<[1.5, 2.0]> : tensor<2xi32>
  %cst_0 = stablehlo.constant dense<[1.0 2.0]> : tensor<2xf32>
  %c_1 = stablehlo.constant dense<[1, 0]> : tensor<2xi1>
  return %cst, %c, %cst_0, %c_1 : tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xi1>
}
