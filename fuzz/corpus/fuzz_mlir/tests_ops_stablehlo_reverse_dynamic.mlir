func.func @main() -> (tensor<2x3xi32>, tensor<1x2xi32>, tensor<2x3xi32>) {
  %x = stablehlo.constant dense<[[0, 1, 2], [3, 4, 5]]> : tensor<2x3xi32>
  %r = stablehlo.reverse %x, dims = [0] : tensor<2x3xi32>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %two = stablehlo.constant dense<2> : tensor<i64>
  %s = stablehlo.dynamic_slice %r, %one, %two, sizes = [1, 2] : (tensor<2x3xi32>, tensor<i64>, tensor<i64>) -> tensor<1x2xi32>
  %u = stablehlo.constant dense<7> : tensor<1x2xi32>
  %m3 = stablehlo.constant dense<-3> : tensor<i64>
  %z = stablehlo.constant dense<0> : tensor<i64>
  %d = stablehlo.dynamic_update_slice %r, %u, %m3, %z : (tensor<2x3xi32>, tensor<1x2xi32>, tensor<i64>, tensor<i64>) -> tensor<2x3xi32>
  return %r, %s, %d : tensor<2x3xi32>, tensor<1x2xi32>, tensor<2x3xi32>
}
