// An op's function type is read whole by the scanner where it has its
// common form (src/mlir/parse_sdy_fast.c: @compact, and rank 0, several
// results, no operands) and token by token where it does not (@spaced:
// other spacing, line breaks); both read alike.
func.func @compact(%x: tensor<4x8xf32>, %s: tensor<f32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %c = "stablehlo.constant"() {value = dense<1.0> : tensor<4x8xf32>} : () -> tensor<4x8xf32>
  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
  %m = stablehlo.multiply %x, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %a = "stablehlo.add"(%m, %c) : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>)
  return %a, %m : tensor<4x8xf32>, tensor<4x8xf32>
}
func.func @spaced(%x: tensor<4x8xf32>, %s: tensor<f32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %c = "stablehlo.constant"() {value = dense<1.0> : tensor<4x8xf32>} :  ( )  ->  tensor<4x8xf32>
  %b = stablehlo.broadcast_in_dim %s, dims = [] :
      (tensor<f32>) -> tensor<4x8xf32>
  %m = stablehlo.multiply %x, %b : (tensor<4x8xf32>,tensor<4x8xf32>)->tensor<4x8xf32>
  %a = "stablehlo.add"(%m, %c) : (tensor<4x8xf32>,
                                  tensor<4x8xf32>) -> ( tensor<4x8xf32> )
  return %a, %m : tensor<4x8xf32>, tensor<4x8xf32>
}
