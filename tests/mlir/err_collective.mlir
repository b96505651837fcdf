// JAX's collectives name device groups: they must be those of manual axes
// of an enclosing manual computation (outside one, a collective_permute's
// pairs those of axes of the module's only mesh, as in a custom op's
// partition function; the other collectives there read as group
// collectives, tests/mlir/opt_group_collectives_mesh.test).
sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = "stablehlo.collective_permute"(%arg0) <{source_target_pairs = dense<[[0, 5]]> : tensor<1x2xi64>}> : (tensor<8xf32>) -> tensor<8xf32>
  %1 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x", "y"}]>] out_shardings=[<@mesh, [{"x", "y"}]>] manual_axes={"x", "y"} (%arg1: tensor<2xf32>) {
    %2 = "stablehlo.all_reduce"(%arg1) <{replica_groups = dense<[[0, 3], [1, 2]]> : tensor<2x2xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<2xf32>) -> tensor<2xf32>
    %4 = "stablehlo.all_to_all"(%2) <{concat_dimension = 0 : i64, split_count = 4 : i64, split_dimension = 0 : i64, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
    %5 = "stablehlo.reduce_scatter"(%4) <{scatter_dimension = 0 : i64, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<2xf32>) -> tensor<1xf32>
    sdy.return %4 : tensor<2xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  %6 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<4xf32>) {
    %7 = "stablehlo.collective_permute"(%arg1) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
    sdy.return %7 : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %1, %6 : tensor<8xf32>, tensor<8xf32>
}
