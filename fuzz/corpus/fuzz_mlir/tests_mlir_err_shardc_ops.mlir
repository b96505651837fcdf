func.func @main(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = "shardc.frobnicate"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "shardc.gelu"(%arg0) {exact = true} : (tensor<8xf32>) -> tensor<8xf32>
  %2 = stablehlo.negate %arg0 {shardc.approximate = true} : tensor<8xf32>
  %3 = "shardc.gelu"(%arg0) {approximate = #stablehlo<precision HIGH>} : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
