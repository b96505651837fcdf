sdy.mesh @m = <["a"=2, "b"=2]>

func.func @whole_rows(%x: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"b"}]>}, %i: tensor<3x1xi64>) -> (tensor<3x6xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"b"}]>}) {
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 6>, sdy.sharding = #sdy.sharding_per_value<[<@m, [{}, {"b"}]>]>} : (tensor<4x6xf32>, tensor<3x1xi64>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

func.func @rows_of_a_sharded_table(%x: tensor<6x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}, %i: tensor<3xi64>) -> tensor<3x4xf32> {
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>} : (tensor<6x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  %1 = sdy.all_reduce {"a"} %0 out_sharding=<@m, [{}, {}]> : tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}

func.func @points_of_a_grid(%x: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {"b"}]>}, %i: tensor<5x2xi32>) -> tensor<5xf32> {
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>} : (tensor<4x6xf32>, tensor<5x2xi32>) -> tensor<5xf32>
  %1 = sdy.all_reduce {"a", "b"} %0 out_sharding=<@m, [{}]> : tensor<5xf32>
  return %1 : tensor<5xf32>
}

func.func @column_zero_only(%x: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"b"}]>}, %i: tensor<3x1xi64>) -> tensor<3x1xf32> {
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>} : (tensor<4x6xf32>, tensor<3x1xi64>) -> tensor<3x1xf32>
  %1 = sdy.all_reduce {"b"} %0 out_sharding=<@m, [{}, {}]> : tensor<3x1xf32>
  return %1 : tensor<3x1xf32>
}
