// jnp.argsort as JAX lowers it: lax.sort of (keys, iota) with num_keys = 1
// and is_stable, the comparator comparing the keys only (JAX's total
// order: compare with type TOTALORDER is printed by newer JAX; a plain LT
// here). Also the attribute-dictionary form sdy_opt prints
// (op_sharding_rule_registry.mlir), with a sharding.
sdy.mesh @mesh = <["x"=2]>

func.func @main(%arg0: tensor<5x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<5x3xi32>, tensor<5x3xf32>) {
  %0 = stablehlo.iota dim = 0 : tensor<5x3xi32>
  %1:2 = "stablehlo.sort"(%arg0, %0) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<i32>, %arg4: tensor<i32>):
    %3 = stablehlo.compare  LT, %arg1, %arg2,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %3 : tensor<i1>
  }) : (tensor<5x3xf32>, tensor<5x3xi32>) -> (tensor<5x3xf32>, tensor<5x3xi32>)
  %2 = "stablehlo.sort"(%arg0) ({
  ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
    %4 = stablehlo.compare  GT, %arg1, %arg2 : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %4 : tensor<i1>
  }) {dimension = 1 : i64, sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : (tensor<5x3xf32>) -> tensor<5x3xf32>
  return %1#1, %2 : tensor<5x3xi32>, tensor<5x3xf32>
}
