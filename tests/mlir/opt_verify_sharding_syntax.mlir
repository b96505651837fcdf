// Malformed shardings read with Shardy's parser errors: the dim's or the
// list's own, then the sharding's, then (inside #sdy.sharding_per_value)
// the list's.
sdy.mesh @grid = <["p"=4, "q"=2]>

func.func @word_priority(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+3 {{expecting priority in format 'p<number>', got: plow}}
  // expected-error @+2 {{failed to parse Sdy_TensorSharding parameter 'dim_shardings'}}
  // expected-error @+1 {{failed to parse Sdy_TensorShardingPerValue parameter 'shardings'}}
  %0 = stablehlo.negate %x {sdy.sharding = #sdy.sharding_per_value<[<@grid, [{"p"}plow, {}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

// expected-error @+2 {{priorities with leading zeros are not allowed, got: p007}}
// expected-error @+1 {{failed to parse Sdy_TensorSharding parameter 'dim_shardings'}}
func.func @zero_led(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@grid, [{}, {"q"}p007]>}) -> tensor<8x8xf32> {
  return %x : tensor<8x8xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

func.func @huge_priority(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+3 {{expecting integer priority, got: p12345678901234567890}}
  // expected-error @+2 {{failed to parse Sdy_TensorSharding parameter 'dim_shardings'}}
  // expected-error @+1 {{failed to parse Sdy_TensorShardingPerValue parameter 'shardings'}}
  %0 = stablehlo.negate %x {sdy.sharding = #sdy.sharding_per_value<[<@grid, [{"p"}p12345678901234567890, {}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

func.func @unreduced_twice(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+2 {{failed to parse Sdy_TensorSharding, expected valid named axis list after comma}}
  // expected-error @+1 {{failed to parse Sdy_TensorShardingPerValue parameter 'shardings'}}
  %0 = stablehlo.negate %x {sdy.sharding = #sdy.sharding_per_value<[<@grid, [{}, {}], unreduced={"p"}, replicated={"q"}, unreduced={"q"}>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

// expected-error @+1 {{failed to parse Sdy_TensorSharding, expected valid named axis list after comma}}
func.func @dangling_comma(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@grid, [{}, {}], replicated={"q"},>}) -> tensor<8x8xf32> {
  return %x : tensor<8x8xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

// expected-error @+1 {{failed to parse Sdy_TensorSharding, expected valid named axis list after comma}}
func.func @other_list(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@grid, [{}, {}], partial={"q"}>}) -> tensor<8x8xf32> {
  return %x : tensor<8x8xf32>
}

// -----

func.func @rule_dangling_comma(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{expected 'custom'}}
  %0 = stablehlo.custom_call @op(%x) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=6},>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}
