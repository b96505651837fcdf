func.func @main(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xi32>, %arg2: tensor<4x8xbf16>) -> (tensor<4xf32>, tensor<8xf32>, tensor<f32>, tensor<4xi32>, tensor<8xi32>, tensor<4xbf16>, tensor<4xf32>) {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %1 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.maximum across dimensions = [0] : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
  %cst_1 = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %2 = stablehlo.reduce(%arg0 init: %cst_1) applies stablehlo.minimum across dimensions = [0, 1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<f32>
  %c = stablehlo.constant dense<-2147483648> : tensor<i32>
  %3 = stablehlo.reduce(%arg1 init: %c) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xi32>, tensor<i32>) -> tensor<4xi32>
  %c_2 = stablehlo.constant dense<0> : tensor<i32>
  %4 = stablehlo.reduce(%arg1 init: %c_2) across dimensions = [0] : (tensor<4x8xi32>, tensor<i32>) -> tensor<8xi32>
   reducer(%a: tensor<i32>, %b: tensor<i32>)  {
    %s = stablehlo.add %b, %a : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }
  %cst_3 = stablehlo.constant dense<0xFF80> : tensor<bf16>
  %5 = stablehlo.reduce(%arg2 init: %cst_3) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xbf16>, tensor<bf16>) -> tensor<4xbf16>
  %cst_4 = stablehlo.constant dense<-3.40282347E+38> : tensor<f32>
  %6 = "stablehlo.reduce"(%arg0, %cst_4) <{dimensions = array<i64: 1>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = stablehlo.maximum %x, %y : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<8xf32>, tensor<f32>, tensor<4xi32>, tensor<8xi32>, tensor<4xbf16>, tensor<4xf32>
}
