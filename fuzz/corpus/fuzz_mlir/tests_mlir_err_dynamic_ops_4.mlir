func.func @iota() -> tensor<?xi32> {
  %0 = stablehlo.iota dim = 0 : tensor<?xi32>
  return %0 : tensor<?xi32>
}
