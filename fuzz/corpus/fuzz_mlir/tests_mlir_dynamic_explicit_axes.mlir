sdy.mesh @mesh = <["x"=2]> {shardc.explicit_axes = ["x"]}

func.func @main(%arg0: tensor<*xf32>, %arg1: tensor<?x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
                %arg2: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> (tensor<*xf32>, tensor<?x4xf32>, tensor<4xf32>) {
  return %arg0, %arg1, %arg2 : tensor<*xf32>, tensor<?x4xf32>, tensor<4xf32>
}
