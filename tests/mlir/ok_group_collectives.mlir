// StableHLO's all_gather, all_to_all and reduce_scatter outside any
// sdy.manual_computation, in a module without a mesh: their replica groups
// name devices no mesh axis does, so they read as group_all_gather, ...
// (the group size the groups' rows; several operands), with Shardy's rules
// (tests/rules_registry/group_collectives.shir).
func.func @main(%a: tensor<2x2xi64>, %b: tensor<2x2xi64>, %c: tensor<2x4xi64>, %d: tensor<2x64xi64>)
    -> (tensor<2x4xi64>, tensor<2x4xi64>, tensor<4x2xi64>, tensor<2x32xi64>) {
  %0:2 = "stablehlo.all_gather"(%a, %b) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>} : (tensor<2x2xi64>, tensor<2x2xi64>) -> (tensor<2x4xi64>, tensor<2x4xi64>)
  %1 = "stablehlo.all_to_all"(%c) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64,
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xi64>) -> tensor<4x2xi64>
  %2 = "stablehlo.reduce_scatter"(%d) ({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = stablehlo.maximum %x, %y : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) {scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x64xi64>) -> tensor<2x32xi64>
  return %0#0, %0#1, %1, %2 : tensor<2x4xi64>, tensor<2x4xi64>, tensor<4x2xi64>, tensor<2x32xi64>
}
