// Found by fuzz_mlir (the campaign of issue 21): a windowed op without
// window_dimensions but with other attributes looked the missing name's
// second spelling up, a NULL name, in strcmp (a crash; UBSan's "null
// pointer passed as argument 2"). Now the attribute is reported missing.
func.func @main(%x: tensor<1x3x3x1xf32>, %s: tensor<1x2x2x1xf32>) -> tensor<1x3x3x1xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %g = "stablehlo.select_and_scatter"(%x, %s, %zero) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %t : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {window_strides = array<i64: 1, 1, 1, 1>} : (tensor<1x3x3x1xf32>, tensor<1x2x2x1xf32>, tensor<f32>) -> tensor<1x3x3x1xf32>
  return %g : tensor<1x3x3x1xf32>
}
