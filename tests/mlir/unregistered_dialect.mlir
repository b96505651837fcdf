sdy.mesh @m = <["a"=2]>

func.func @f(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) {
  "debug.print"(%arg0) {tag = "x", level = 2 : i64} : (tensor<8x4xf32>) -> ()
  %0 = "my.identity"(%arg0) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %1 = stablehlo.add %0, %arg0 : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}
