func.func @f(%x: tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>) {
  %0:2 = "shardc.top_k"(%x) {k = 2} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>)
  return %0#0, %0#1 : tensor<4x2xf32>, tensor<4x2xi32>
}
