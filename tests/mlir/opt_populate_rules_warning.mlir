module {
  func.func @calls(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-warning@+1 {{custom call @my_kernel is unknown to SDY sharding rule registry}}
    %a = stablehlo.custom_call @my_kernel(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    // Shardy warns once: no second warning, and no rule
    %b = stablehlo.custom_call @other_kernel(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    // known to have no rule: no warning
    %c = stablehlo.custom_call @xla.debug.Log(%b) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %c : tensor<4x8xf32>
  }
}
