func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.cbrt %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}
