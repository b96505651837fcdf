// jnp.argsort as JAX lowers it (lax.sort of keys and an iota, num_keys = 1,
// is_stable), its comparator's compare with TOTALORDER: StableHLO's total
// order -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN, on keys with
// NaNs of both signs and zeros of both signs (MLIR's hex floats:
// 0x7FC00000 +NaN, 0xFFC00000 -NaN, 0x80000000 -0, 0xFF800000 -Inf,
// 0x7F800000 +Inf), rows sharded over "x"=2 (the sorted dim 1 whole).
sdy.mesh @m = <["x"=2]>

func.func @main() -> (tensor<2x8xi32>, tensor<2x8xi1>) {
  %keys = stablehlo.constant dense<[[0x7FC00000, 1.0, 0x80000000, 0xFF800000, 0xFFC00000, 0.0, 0x7F800000, -1.0],
                                    [0x80000000, 0.0, 0x80000000, 0.0, 0x7FC00000, 0xFFC00000, 2.0, -2.0]]> : tensor<2x8xf32>
  %k = sdy.sharding_constraint %keys <@m, [{"x"}, {}]> : tensor<2x8xf32>
  %iota = stablehlo.iota dim = 1 : tensor<2x8xi32>
  %s:2 = "stablehlo.sort"(%k, %iota) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>):
    %lt = stablehlo.compare  LT, %a, %b,  TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x8xf32>, tensor<2x8xi32>) -> (tensor<2x8xf32>, tensor<2x8xi32>)
  %zero = stablehlo.constant dense<0.0> : tensor<2x8xf32>
  %neg0 = stablehlo.constant dense<0x80000000> : tensor<2x8xf32>
  %le = stablehlo.compare  LE, %zero, %neg0,  TOTALORDER : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xi1>
  return %s#1, %le : tensor<2x8xi32>, tensor<2x8xi1>
}
