// Shardings are checked as Shardy's verifier does, in its words, at the op
// (a note points at the argument's attribute): meshes, axes, sub-axes, axes used
// twice, priorities on closed empty dims; one sharding per result.
sdy.mesh @mesh = <["x"=4, "y"=2]>
func.func @main(%arg0: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@nomesh, [{}, {}]>},
                %arg1: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"z"}, {}]>},
                %arg2: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(1)4}, {}]>},
                %arg3: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"x":(2)2}]>},
                %arg4: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}p0, {}]>}) -> tensor<4x4xf32> {
  %0 = stablehlo.add %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>]>} : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
