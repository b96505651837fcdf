func.func @main(%a: tensor<4x2xi1>) -> (tensor<4xi1>, tensor<2xi1>) {
  %f = stablehlo.constant dense<false> : tensor<i1>
  %t = stablehlo.constant dense<true> : tensor<i1>
  %0 = stablehlo.reduce(%a init: %f) applies stablehlo.or across dimensions = [1] : (tensor<4x2xi1>, tensor<i1>) -> tensor<4xi1>
  %1 = stablehlo.reduce(%a init: %t) applies stablehlo.and across dimensions = [0] : (tensor<4x2xi1>, tensor<i1>) -> tensor<2xi1>
  return %0, %1 : tensor<4xi1>, tensor<2xi1>
}
