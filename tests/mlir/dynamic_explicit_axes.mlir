// A mesh of explicit axes (shardc.explicit_axes, JAX's AxisType.Explicit):
// the explicit-axes pass gives dynamic and unranked arguments no spec (it
// once sized one by the rank -1 of tensor<*xf32>: out of memory).
sdy.mesh @mesh = <["x"=2]> {shardc.explicit_axes = ["x"]}

func.func @main(%arg0: tensor<*xf32>, %arg1: tensor<?x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
                %arg2: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> (tensor<*xf32>, tensor<?x4xf32>, tensor<4xf32>) {
  return %arg0, %arg1, %arg2 : tensor<*xf32>, tensor<?x4xf32>, tensor<4xf32>
}
