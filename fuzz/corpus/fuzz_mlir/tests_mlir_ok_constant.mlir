func.func @main() -> (tensor<2x2xf32>, tensor<3xi32>, tensor<2xi1>, tensor<4xf32>, tensor<2xf32>, tensor<2xi64>, tensor<3xf32>, tensor<0xf32>, tensor<2xf64>, tensor<2xbf16>, tensor<2x2xi1>) {
  %cst = stablehlo.constant dense<[[1.000000e+00, -2.500000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
  %c = stablehlo.constant dense<[1, -2, 3]> : tensor<3xi32>
  %c_0 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<4xf32>
  %cst_2 = stablehlo.constant dense<[0x7F800000, 0xFF800000]> : tensor<2xf32>
  %c_3 = stablehlo.constant dense<"0x01000000000000000200000000000000"> : tensor<2xi64>
  %cst_4 = stablehlo.constant dense<"0x0000803F0000004000004040"> : tensor<3xf32>
  %cst_5 = stablehlo.constant dense<> : tensor<0xf32>
  %cst_6 = "stablehlo.constant"() <{value = dense<[1.000000e-01, 2.500000e-01]> : tensor<2xf64>}> : () -> tensor<2xf64>
  %cst_7 = stablehlo.constant dense<[1.000000e+00, 0xC000]> : tensor<2xbf16>
  %c_8 = stablehlo.constant dense<true> : tensor<2x2xi1>
  return %cst, %c, %c_0, %cst_1, %cst_2, %c_3, %cst_4, %cst_5, %cst_6, %cst_7, %c_8 : tensor<2x2xf32>, tensor<3xi32>, tensor<2xi1>, tensor<4xf32>, tensor<2xf32>, tensor<2xi64>, tensor<3xf32>, tensor<0xf32>, tensor<2xf64>, tensor<2xbf16>, tensor<2x2xi1>
}
