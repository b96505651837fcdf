module @shardings attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["x"=4, "y"=2]>
  sdy.mesh @permuted = <["a"=2], device_ids=[1, 0]>
  sdy.mesh @iota = <["a"=2, "b"=2], device_ids=[0, 1, 2, 3]>
  sdy.mesh @empty = <[]>
  sdy.mesh @maximal = <[], device_ids=[0]>
  func.func @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", ?}p1, {"y"}p0]>},
                  %arg1: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(1)2}, {?}], replicated={"y"}>})
      -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, tensor<8x16xf32>) {
    %0 = stablehlo.add %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x":(2)2, ?}, {?}]>]>} : tensor<8x16xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"x"}, {"y"}]> : tensor<8x16xf32>
    %2 = sdy.reshard %1 <@mesh, [{}, {"x"}]> : tensor<8x16xf32>
    %3:2 = call @pair(%2, %arg1) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {}]>]>} : (tensor<8x16xf32>, tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>)
    %4 = "sdy.sharding_constraint"(%3#1) <{sharding = #sdy.sharding<@mesh, []>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %3#0, %4 : tensor<8x16xf32>, tensor<8x16xf32>
  }
  func.func private @pair(%arg0: tensor<8x16xf32>, %arg1: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
    return %arg1, %arg0 : tensor<8x16xf32>, tensor<8x16xf32>
  }
}
