module {
  func.func @linalg(%a: tensor<2x6x6xf32>, %q: tensor<2x7x4xf32>, %t: tensor<2x3xf32>) -> (tensor<2x6xf32>, tensor<2x4xf32>, tensor<2x7x4xf32>) {
    %v:2 = stablehlo.custom_call @Eigh(%a) : (tensor<2x6x6xf32>) -> (tensor<2x6x6xf32>, tensor<2x6xf32>)
    %r:2 = stablehlo.custom_call @Qr(%q) : (tensor<2x7x4xf32>) -> (tensor<2x7x4xf32>, tensor<2x4xf32>)
    %h = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%q, %t) : (tensor<2x7x4xf32>, tensor<2x3xf32>) -> tensor<2x7x4xf32>
    return %v#1, %r#1, %h : tensor<2x6xf32>, tensor<2x4xf32>, tensor<2x7x4xf32>
  }
  func.func @approx(%x: tensor<8x32xf32>, %i: tensor<8x32xi32>, %init: tensor<f32>, %iinit: tensor<i32>) -> tensor<8x4xf32> {
    %m:2 = stablehlo.custom_call @ApproxTopK(%x, %i, %init, %iinit) : (tensor<8x32xf32>, tensor<8x32xi32>, tensor<f32>, tensor<i32>) -> (tensor<8x4xf32>, tensor<8x4xi32>)
    return %m#0 : tensor<8x4xf32>
  }
}
