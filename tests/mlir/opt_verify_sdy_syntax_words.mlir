// Syntax errors inside sdy attributes in Shardy's parser's words, with
// the errors of the parameters around them (parse_sdy.c
// mlir_sdy_syntax_error), where bison's own message would say
// "syntax error, unexpected ...".
sdy.mesh @grid = <["p"=4, "q"=2]>

// expected-error @+2 {{expected '='}}
// expected-error @+1 {{failed to parse Sdy_TensorSharding parameter 'unreduced_axes'}}
func.func @option_without_equals(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@grid, [{}, {}], unreduced {"p"}>}) -> tensor<8x8xf32> {
  return %x : tensor<8x8xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

func.func @option_not_a_set(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+3 {{expected '{'}}
  // expected-error @+2 {{failed to parse Sdy_TensorSharding parameter 'replicated_axes'}}
  // expected-error @+1 {{failed to parse Sdy_TensorShardingPerValue parameter 'shardings'}}
  %0 = stablehlo.negate %x {sdy.sharding = #sdy.sharding_per_value<[<@grid, [{}, {}], replicated="p">]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

func.func @axes_without_comma(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+3 {{expected '}'}}
  // expected-error @+2 {{failed to parse Sdy_TensorSharding parameter 'unreduced_axes'}}
  // expected-error @+1 {{failed to parse Sdy_TensorShardingPerValue parameter 'shardings'}}
  %0 = stablehlo.negate %x {sdy.sharding = #sdy.sharding_per_value<[<@grid, [{}, {}], unreduced={"p" "q"}>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

func.func @axis_not_quoted(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+5 {{expected string}}
  // expected-error @+4 {{failed to parse Sdy_AxisRef parameter 'name'}}
  // expected-error @+3 {{failed to parse axis list which is expected to be an `ArrayRef<AxisRefAttr>`}}
  // expected-error @+2 {{failed to parse Sdy_TensorSharding parameter 'replicated_axes'}}
  // expected-error @+1 {{failed to parse Sdy_TensorShardingPerValue parameter 'shardings'}}
  %0 = stablehlo.negate %x {sdy.sharding = #sdy.sharding_per_value<[<@grid, [{}, {}], replicated={q}>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @dim_of_two_words(%x: tensor<2x4xf32>) -> tensor<8xf32> {
  // expected-error @+2 {{expected ']'}}
  // expected-error @+1 {{failed to parse Sdy_OpShardingRule parameter 'operand_mappings'}}
  %0 = stablehlo.reshape %x {sdy.sharding_rule = #sdy.op_sharding_rule<([i j])->([ij]) {i=2, j=4}>} : (tensor<2x4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @z_index_apart(%x: tensor<2x4xf32>) -> tensor<8xf32> {
  // expected-error @+3 {{expecting integer after 'z_'}}
  // expected-error @+2 {{failed to parse Sdy_TensorMapping parameter 'dim_mappings'}}
  // expected-error @+1 {{failed to parse Sdy_OpShardingRule parameter 'result_mappings'}}
  %0 = stablehlo.reshape %x {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([z_ 2]) {i=2, j=4}>} : (tensor<2x4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @factor_set_without_equals(%x: tensor<2x4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expected '='}}
  %0 = stablehlo.custom_call @f(%x) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i]) {i=2, j=4} need_replication {j}>} : (tensor<2x4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
