sdy.mesh @mesh = <["y"=4]>
sdy.mesh @m = <["x"=2]>

func.func @main(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<mesh<["x"=2]>, [{"x"}]>},
                %arg1: tensor<4xf32> {sdy.sharding = #sdy.sharding<mesh<["z"=2]>, [{"z"}]>},
                %arg2: tensor<4xf32> {sdy.sharding = #sdy.sharding<mesh<[], device_ids=[0]>, []>}) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
