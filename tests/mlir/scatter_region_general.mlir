// stablehlo.scatter with update computations shardc has no name for
// (issue 18): a subtraction, kept as the op's region; and two inputs
// (JAX's scatter of a value and a count), whose region stays a region even
// where each return is one add. Both print back as StableHLO's generic
// form with the region.
func.func @main(%x: tensor<8xf32>, %i: tensor<2x1xi32>, %u: tensor<2xf32>, %k: tensor<8xi32>, %one: tensor<2xi32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xi32>) {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.subtract %a, %b : tensor<f32>
    stablehlo.return %c : tensor<f32>
  }) : (tensor<8xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<8xf32>
  %1:2 = "stablehlo.scatter"(%x, %k, %i, %u, %one) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<i32>):
    %s = stablehlo.add %a, %c : tensor<f32>
    %t = stablehlo.add %b, %d : tensor<i32>
    stablehlo.return %s, %t : tensor<f32>, tensor<i32>
  }) : (tensor<8xf32>, tensor<8xi32>, tensor<2x1xi32>, tensor<2xf32>, tensor<2xi32>) -> (tensor<8xf32>, tensor<8xi32>)
  return %0, %1#0, %1#1 : tensor<8xf32>, tensor<8xf32>, tensor<8xi32>
}
