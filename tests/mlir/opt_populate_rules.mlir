module {
  func.func @ops(%x: tensor<16x8xf32>, %w: tensor<8x32xf32>, %b: tensor<32xf32>) -> (tensor<16xf32>, tensor<18x8xf32>) {
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %h = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<16x8xf32>, tensor<8x32xf32>) -> tensor<16x32xf32>
    %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<32xf32>) -> tensor<16x32xf32>
    %y = stablehlo.add %h, %bb : tensor<16x32xf32>
    %s = stablehlo.reduce(%y init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<16x32xf32>, tensor<f32>) -> tensor<16xf32>
    %p = stablehlo.pad %x, %zero, low = [1, 0], high = [1, 0], interior = [0, 0] : (tensor<16x8xf32>, tensor<f32>) -> tensor<18x8xf32>
    %t = stablehlo.transpose %p, dims = [1, 0] {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([j, i]) {i=18, j=8}, custom>} : (tensor<18x8xf32>) -> tensor<8x18xf32>
    %m = stablehlo.custom_call @MoveToHost(%p) : (tensor<18x8xf32>) -> tensor<18x8xf32>
    %v:2 = stablehlo.custom_call @mhlo.topk(%x) {mhlo.attributes = {k = 2 : i64, largest = true}, mhlo.version = 1 : i64} : (tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xi32>)
    return %s, %m : tensor<16xf32>, tensor<18x8xf32>
  }
  func.func @dot_pairs(%a: tensor<4x8x6xf32>, %b: tensor<6x8x5xf32>) -> tensor<4x5xf32> {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [2, 1] x [0, 1] : (tensor<4x8x6xf32>, tensor<6x8x5xf32>) -> tensor<4x5xf32>
    return %0 : tensor<4x5xf32>
  }
}
