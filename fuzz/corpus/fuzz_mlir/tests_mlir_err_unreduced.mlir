sdy.mesh @mesh = <["x"=2, "y"=2, "z"=8]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}], unreduced={"x"}>},
                %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}], replicated={"y"}, unreduced={"y"}>},
                %arg2: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}], unreduced={"y", "x"}>},
                %arg3: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}], unreduced={"z":(1)2, "z":(2)4}>},
                %arg4: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}], unreduced=prod{"x"}>},
                %arg5: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}], unreduced={"w"}>}) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
}
