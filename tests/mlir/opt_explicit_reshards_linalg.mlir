sdy.mesh @m = <["a"=2, "b"=4]>

func.func @cholesky_matrix_dim(%x: tensor<4x2x6x6xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {}, {"a"}, {}]>}) -> tensor<4x2x6x6xf32> {
  %0 = stablehlo.cholesky %x, lower = true : (tensor<4x2x6x6xf32>) -> tensor<4x2x6x6xf32>
  return %0 : tensor<4x2x6x6xf32>
}

func.func @cholesky_upper(%x: tensor<4x6x6xf32> {sdy.sharding = #sdy.sharding<@m, [{"b"}, {}, {}]>}) -> (tensor<4x6x6xf32> {sdy.sharding = #sdy.sharding<@m, [{"b"}, {}, {}]>}) {
  %0 = stablehlo.cholesky %x : tensor<4x6x6xf32>
  return %0 : tensor<4x6x6xf32>
}

func.func @triangular_solve_batch(%a: tensor<4x3x3xf32> {sdy.sharding = #sdy.sharding<@m, [{"b"}, {}, {}]>}, %b: tensor<4x3x5xf32>) -> tensor<4x3x5xf32> {
  %0 = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = false, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = true}> : (tensor<4x3x3xf32>, tensor<4x3x5xf32>) -> tensor<4x3x5xf32>
  return %0 : tensor<4x3x5xf32>
}
