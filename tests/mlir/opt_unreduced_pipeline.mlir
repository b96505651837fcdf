// RUN: shardc opt %s -sdy-propagation-pipeline
// The pipeline's export inserts an sdy.all_reduce where an unreduced value
// meets a use that does not keep all its unreduced axes: the exp (not
// unreduced) gets one over "x" and "y", the constraint keeping "y" one over
// "x" only, the return of a value kept unreduced as the result is none.
// CHECK: %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}], unreduced={"x", "y"}>]>}
// CHECK-NEXT: %1 = sdy.all_reduce {"x", "y"} %0 out_sharding=<@mesh, [{}, {}]> : tensor<4x4xf32>
// CHECK-NEXT: %2 = stablehlo.exponential %1
// CHECK-NEXT: %3 = sdy.all_reduce {"x"} %0 out_sharding=<@mesh, [{}, {}], unreduced={"y"}> : tensor<4x4xf32>
// CHECK-NEXT: %4 = sdy.reshard %3 <@mesh, [{}, {}], unreduced={"y"}> : tensor<4x4xf32>
// CHECK-NEXT: return %2, %4
sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%arg0: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x", "y"}]>}, %arg1: tensor<8x4xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}], unreduced={"y"}>}) {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}], unreduced={"x", "y"}>]>} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %1 = stablehlo.exponential %0 : tensor<4x4xf32>
  %2 = sdy.sharding_constraint %0 <@mesh, [{}, {}], unreduced={"y"}> : tensor<4x4xf32>
  return %1, %2 : tensor<4x4xf32>, tensor<4x4xf32>
}
