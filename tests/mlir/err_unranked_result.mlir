// An unranked function result, of a static value: refused at the result.
func.func @main(%arg0: tensor<4xf32>) -> tensor<*xf32> {
  return %arg0 : tensor<4xf32>
}
