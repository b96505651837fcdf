func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{some error}}
  %0 = stablehlo.negate %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}
