sdy.mesh @neg = <["a"=2], device_ids=[-1, 0]>
sdy.mesh @empty_many = <[], device_ids=[0, 1]>
sdy.mesh @m = <["a"=8]>
func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a":(0)2}]>},
             %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a":(2)1}]>},
             %arg2: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a":(3)2}]>},
             %arg3: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {"a"}]>}) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
}
