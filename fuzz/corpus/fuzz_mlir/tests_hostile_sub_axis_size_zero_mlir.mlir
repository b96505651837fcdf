sdy.mesh @m = <["a"=4]>
func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a":(0)0}]>},
             %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a":(2)0}]>}) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
}
