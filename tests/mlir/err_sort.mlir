// stablehlo.sort without its comparator region is refused, located.
func.func @main(%arg0: tensor<5xf32>) -> tensor<5xf32> {
  %0 = "stablehlo.sort"(%arg0) {dimension = 0 : i64} : (tensor<5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
