module {
  func.func @main(%arg0: tensor<4xui32>, %arg1: tensor<4xf16>, %arg2: tensor<4xi8>, %arg3: tensor<4xi1>) -> (tensor<4xui32>, tensor<4xf16>, tensor<4xi8>, tensor<4xi1>) {
    %c = stablehlo.constant dense<4294967295> : tensor<4xui32>
    %cst = stablehlo.constant dense<6.550400e+04> : tensor<4xf16>
    %0 = stablehlo.add %arg0, %c : tensor<4xui32>
    %1 = stablehlo.multiply %arg1, %cst : tensor<4xf16>
    %2 = stablehlo.negate %arg2 : tensor<4xi8>
    return %0, %1, %2, %arg3 : tensor<4xui32>, tensor<4xf16>, tensor<4xi8>, tensor<4xi1>
  }
}
