func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "my.loop"(%arg0) ({
  ^bb0(%x: tensor<4xf32>):
    "my.yield"(%x) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.no_such_op"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
