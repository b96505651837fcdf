// An op's function type (or one type ending the line) in its common form
// is read whole by the scanner (src/mlir/parse_sdy_fast.c); errors in its
// types point at each type's own column, as when it is read token by token
// (%b's spacing, %h's line break).
func.func @main(%x: tensor<8xf32>, %y: tensor<4x8xf32>) -> tensor<8xf32> {
  %a = stablehlo.add %x, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xq9>
  %b = stablehlo.add %x, %x : ( tensor<8xf32> , tensor<8xf32> ) -> tensor<8xq9>
  %c = stablehlo.negate %y : (tensor<4x8xf32>) -> tensor<4x8xf99>
  %d = stablehlo.negate %y : (tensor<4x8xf32>) -> tensor<4x8xf32, #enc>
  %e = stablehlo.negate %y : (tensor<4x8xf32>) -> (tensor<4x8xq9>)
  %g = stablehlo.negate %y : tensor<4x8xq9>
  %h = stablehlo.negate %y :
      tensor<4x8xq9>
  %f = "stablehlo.negate"(%y) : (tensor<4x8xf32>) -> tensor<4x8xui32>
  return %x : tensor<8xf32>
}
