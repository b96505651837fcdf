sdy.mesh @m = <["x"=2]>
func.func @main(%x: tensor<8x3xf32>, %i: tensor<5x1xi32>, %u: tensor<5x3xf32>) -> (tensor<8x3xf32>, tensor<8x3xf32>) {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = sdy.sharding_constraint %a <@m, []> : tensor<f32>
    %d = sdy.sharding_constraint %b <@m, []> : tensor<f32>
    %e = stablehlo.maximum %c, %d : tensor<f32>
    stablehlo.return %e : tensor<f32>
  }) : (tensor<8x3xf32>, tensor<5x1xi32>, tensor<5x3xf32>) -> tensor<8x3xf32>
  %1 = "stablehlo.scatter"(%0, %i, %u) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<8x3xf32>, tensor<5x1xi32>, tensor<5x3xf32>) -> tensor<8x3xf32>
  return %0, %1 : tensor<8x3xf32>, tensor<8x3xf32>
}
