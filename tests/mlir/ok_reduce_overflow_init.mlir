// Input of ok_reduce_overflow_init.test: a max reduce whose init is
// beyond f32's range (-3.8E+38 is f32's -inf, printed 0xFF800000), and a
// min reduce whose init is f32's highest value, in the region form.
func.func @main(%arg0: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  %cst = stablehlo.constant dense<-3.80224347E+38> : tensor<f32>
  %0 = "stablehlo.reduce"(%arg0, %cst) <{dimensions = array<i64: 1>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = stablehlo.maximum %x, %y : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %cst_0 = stablehlo.constant dense<3.40282347E+38> : tensor<f32>
  %1 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.minimum across dimensions = [0] : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
  return %0, %1 : tensor<4xf32>, tensor<8xf32>
}
