func.func @main() -> (tensor<2xi8>, tensor<2xui32>, tensor<2xf16>) {
  %0 = stablehlo.constant dense<"0x80FF"> : tensor<2xi8>
  %1 = stablehlo.constant dense<"0xFFFFFFFF01000000"> : tensor<2xui32>
  %2 = stablehlo.constant dense<"0x003CFC7B"> : tensor<2xf16>
  return %0, %1, %2 : tensor<2xi8>, tensor<2xui32>, tensor<2xf16>
}
