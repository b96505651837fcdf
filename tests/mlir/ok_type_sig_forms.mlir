// An op's function type, or one type ending the line (or before a `{`),
// is read whole by the scanner where it has its common form
// (src/mlir/parse_sdy_fast.c: @compact, with rank 0, several results, no
// operands, an argument's type before its attributes, a typed attribute
// ending its line) and token by token where it does not (@spaced: other
// spacing, line breaks); both read alike.
func.func @compact(%x: tensor<4x8xf32> {jax.arg_info = "x"}, %s: tensor<f32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %c = "stablehlo.constant"() {value = dense<1.0> : tensor<4x8xf32>} : () -> tensor<4x8xf32>
  %k = "stablehlo.constant"() {
    value = dense<2.0> : tensor<4x8xf32>
  } : () -> tensor<4x8xf32>
  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
  %m = stablehlo.multiply %x, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %n = stablehlo.negate %m : tensor<4x8xf32>
  %a = "stablehlo.add"(%n, %c) : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>)
  %r = stablehlo.subtract %a, %k : tensor<4x8xf32>  
  return %r, %m : tensor<4x8xf32>, tensor<4x8xf32>
}
func.func @spaced(%x: tensor<4x8xf32>{jax.arg_info = "x"}, %s: tensor<f32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %c = "stablehlo.constant"() {value = dense<1.0> : tensor<4x8xf32>} :  ( )  ->  tensor<4x8xf32>
  %k = "stablehlo.constant"() {
    value = dense<2.0> :
      tensor<4x8xf32>} : () -> tensor<4x8xf32>
  %b = stablehlo.broadcast_in_dim %s, dims = [] :
      (tensor<f32>) -> tensor<4x8xf32>
  %m = stablehlo.multiply %x, %b : (tensor<4x8xf32>,tensor<4x8xf32>)->tensor<4x8xf32>
  %n = stablehlo.negate %m :
    tensor<4x8xf32>
  %a = "stablehlo.add"(%n, %c) : (tensor<4x8xf32>,
                                  tensor<4x8xf32>) -> ( tensor<4x8xf32> )
  %r = stablehlo.subtract %a, %k : tensor< 4x8xf32 >
  return %r, %m : tensor<4x8xf32>
      , tensor<4x8xf32>
}
