func.func @main(%x: tensor<8xf32>, %i: tensor<2x1xi32>, %u: tensor<2xf32>) -> tensor<8xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.subtract %a, %b : tensor<f32>
    stablehlo.return %c : tensor<f32>
  }) : (tensor<8xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
