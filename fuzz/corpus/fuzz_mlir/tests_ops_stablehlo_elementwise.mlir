func.func @main() -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2xi32>, tensor<4xi32>, tensor<2xi32>, tensor<2xi1>, tensor<1xi32>) {
  %x = stablehlo.constant dense<[-1.5, 0.5, 2.5]> : tensor<3xf32>
  %lo = stablehlo.constant dense<0.0> : tensor<f32>
  %hi = stablehlo.constant dense<1.0> : tensor<f32>
  %0 = stablehlo.clamp %lo, %x, %hi : (tensor<f32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %1 = stablehlo.round_nearest_even %x : tensor<3xf32>
  %t = stablehlo.constant dense<true> : tensor<i1>
  %2 = stablehlo.select %t, %1, %x : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %a = stablehlo.constant dense<[7, -7]> : tensor<2xi32>
  %b = stablehlo.constant dense<[-3, 3]> : tensor<2xi32>
  %3 = stablehlo.remainder %a, %b : tensor<2xi32>
  %v = stablehlo.constant dense<[-16, 3, -1, 6]> : tensor<4xi32>
  %s = stablehlo.constant dense<[2, 4, 28, 3]> : tensor<4xi32>
  %sra = stablehlo.shift_right_arithmetic %v, %s : tensor<4xi32>
  %sl = stablehlo.shift_left %v, %s : tensor<4xi32>
  %srl = stablehlo.shift_right_logical %v, %s : tensor<4xi32>
  %c0 = stablehlo.constant dense<[0, -1, 0, 0]> : tensor<4xi32>
  %c1 = stablehlo.constant dense<[-1, 0, 0, 0]> : tensor<4xi32>
  %c2 = stablehlo.constant dense<[0, 0, -1, -1]> : tensor<4xi32>
  %m0 = stablehlo.and %sra, %c1 : tensor<4xi32>
  %m1 = stablehlo.and %sl, %c0 : tensor<4xi32>
  %m2 = stablehlo.and %srl, %c2 : tensor<4xi32>
  %o1 = stablehlo.or %m0, %m1 : tensor<4xi32>
  %4 = stablehlo.or %o1, %m2 : tensor<4xi32>
  %p = stablehlo.constant dense<[6, 5]> : tensor<2xi32>
  %q = stablehlo.constant dense<[3, 0]> : tensor<2xi32>
  %xq = stablehlo.xor %p, %q : tensor<2xi32>
  %5 = stablehlo.not %xq : tensor<2xi32>
  %f = stablehlo.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<2xf32>
  %d = stablehlo.divide %f, %zb : tensor<2xf32>
  %6 = stablehlo.is_finite %d : (tensor<2xf32>) -> tensor<2xi1>
  %one = stablehlo.constant dense<[1.0]> : tensor<1xf32>
  %7 = stablehlo.bitcast_convert %one : (tensor<1xf32>) -> tensor<1xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2xi32>, tensor<4xi32>, tensor<2xi32>, tensor<2xi1>, tensor<1xi32>
}
