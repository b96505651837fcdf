sdy.mesh @mesh = <["x"=2, "y"=2, "z"=4]>
func.func @main(%arg0: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}], unreduced={"y"}>},
                %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}], replicated={"x"}, unreduced=max{"y", "z":(1)2}>})
    -> (tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}], unreduced={}>}) {
  %0 = stablehlo.add %arg0, %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x", ?}, {?}], unreduced=min{"z"}>]>} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
