func.func @dynamic_literal() -> tensor<?x2xi32> {
  %0 = stablehlo.constant dense<[[1, 2]]> : tensor<?x2xi32>
  return %0 : tensor<?x2xi32>
}
