func.func @main() -> (tensor<2x2xf32>, tensor<3x2xf32>) {
  %x = stablehlo.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]> : tensor<3x2xf32>
  %ids = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi64>
  %g = "stablehlo.gather"(%x, %ids) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 2>, indices_are_sorted = false
  } : (tensor<3x2xf32>, tensor<2x1xi64>) -> tensor<2x2xf32>
  %at = stablehlo.constant dense<[[2], [2]]> : tensor<2x1xi64>
  %u = stablehlo.constant dense<[[1.0, 1.0], [10.0, 10.0]]> : tensor<2x2xf32>
  %s = "stablehlo.scatter"(%x, %at, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %c : tensor<f32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>,
    indices_are_sorted = false, unique_indices = false
  } : (tensor<3x2xf32>, tensor<2x1xi64>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %g, %s : tensor<2x2xf32>, tensor<3x2xf32>
}
