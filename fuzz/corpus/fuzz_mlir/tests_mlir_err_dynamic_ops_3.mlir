func.func @reshape(%arg0: tensor<?x4xf32>) -> tensor<?xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<?x4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
