// Shardy's verifier on dynamic and unranked values, in its words, each
// module of this file on its own (-split-input-file).
sdy.mesh @mesh = <["x"=4, "y"=2]>
// An unranked tensor takes no sharding, not even a replicated one.
func.func @unranked_sharded(%arg0: tensor<*xf32> {sdy.sharding = #sdy.sharding<@mesh, []>}) -> tensor<*xf32> {
  return %arg0 : tensor<*xf32>
}
// -----
sdy.mesh @mesh = <["x"=4, "y"=2]>
// A dynamic tensor has a rank: one dim sharding per dim.
func.func @dynamic_rank(%arg0: tensor<?x4x?xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<?x4x?xf32> {
  return %arg0 : tensor<?x4x?xf32>
}
// -----
sdy.mesh @mesh = <["x"=4, "y"=2]>
// The rest of the sharding is checked as on static tensors.
func.func @dynamic_overlap(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = stablehlo.multiply %arg0, %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x":(1)2}, {"y"}], replicated={"x"}>]>} : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
// -----
// A sharding rule needs static shapes on every operand and result.
func.func @rule_on_dynamic(%arg0: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = stablehlo.abs %arg0 {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=3}>} : tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}
// -----
func.func @rule_on_unranked(%arg0: tensor<*xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.convert %arg0 {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=4}>} : (tensor<*xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
// -----
// A literal needs a static shape.
func.func @dynamic_literal() -> tensor<?x2xi32> {
  %0 = stablehlo.constant dense<[[1, 2]]> : tensor<?x2xi32>
  return %0 : tensor<?x2xi32>
}
// -----
func.func @unranked_literal() -> tensor<*xcomplex<f32>> {
  %0 = stablehlo.constant dense<(1.0, 0.5)> : tensor<*xcomplex<f32>>
  return %0 : tensor<*xcomplex<f32>>
}
// -----
sdy.mesh @mesh = <["x"=4, "y"=2]>
// A manual computation's local shapes keep a dynamic dim dynamic.
func.func @manual_local_shape(%arg0: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {"x"}]>] out_shardings=[<@mesh, [{}, {"x"}]>] manual_axes={"x"} (%arg1: tensor<?x16xf32>) {
    sdy.return %arg1 : tensor<?x16xf32>
  } : (tensor<?x16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}
// -----
sdy.mesh @mesh = <["x"=4, "y"=2]>
func.func @manual_static_body(%arg0: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {"y"}]>] manual_axes={"x", "y"} (%arg1: tensor<4x8xf32>) {
    sdy.return %arg1 : tensor<4x8xf32>
  } : (tensor<?x16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}
// -----
sdy.mesh @mesh = <["x"=4, "y"=2]>
func.func @manual_unranked(%arg0: tensor<*xf32>) -> tensor<*xf32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<*xf32>) {
    sdy.return %arg1 : tensor<*xf32>
  } : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
