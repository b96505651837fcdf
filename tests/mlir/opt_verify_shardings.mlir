// Shardings checked as Shardy's verifier checks them, reported at the op
// that holds them with MLIR's prefix for the value: the annotations are
// what sdy_opt -verify-diagnostics would expect.
sdy.mesh @grid = <["p"=4, "q"=2, "r"=2]>

func.func @result_rank(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'stablehlo.negate' op result - sharding doesn't match tensor rank: 2 != 1}}
  %0 = stablehlo.negate %x {sdy.sharding = #sdy.sharding_per_value<[<@grid, [{"p"}, {}]>]>} : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

// expected-error @+1 {{'func.func' op result 1 - unknown mesh: @elsewhere}}
func.func @func_result_mesh(%x: tensor<16xf32>)
    -> (tensor<16xf32>, tensor<16xf32> {sdy.sharding = #sdy.sharding<@elsewhere, [{}]>}) {
  return %x, %x : tensor<16xf32>, tensor<16xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

func.func @plain_sharding_on_op(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'stablehlo.abs' op should have a sharding attribute of type TensorShardingPerValueAttr}}
  %0 = stablehlo.abs %x {sdy.sharding = #sdy.sharding<@grid, [{"p"}]>} : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

// expected-error @+1 {{'func.func' op arg 0 - should have a sharding attribute of type TensorShardingAttr}}
func.func @per_value_on_arg(%x: tensor<16xf32> {sdy.sharding = #sdy.sharding_per_value<[<@grid, [{}]>]>}) -> tensor<16xf32> {
  return %x : tensor<16xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2, "r"=2]>

func.func @replicated_order(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'sdy.sharding_constraint' op replicated axes are not ordered w.r.t. mesh}}
  %0 = sdy.sharding_constraint %x <@grid, [{}], replicated={"r", "q"}> : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

sdy.mesh @grid = <["p"=8]>

func.func @overlap(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{'sdy.reshard' op overlapping sub-axes: "p":(1)4, "p":(2)2}}
  %0 = sdy.reshard %x <@grid, [{"p":(1)4}, {"p":(2)2}]> : tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

sdy.mesh @grid = <["p"=8]>

func.func @sub_and_whole(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{both sub-axis and full-axis are used for axis name: "p"}}
  %0 = sdy.reshard %x <@grid, [{"p"}, {}], replicated={"p":(2)2}> : tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

func.func @reshard_rank(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'sdy.reshard' op sharding doesn't match tensor rank: 3 != 1}}
  %0 = sdy.reshard %x <@grid, [{}, {}, {}]> : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

func.func @inner_uses_manual_axis(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-note @+1 {{parent bounding this axis as manual}}
  %0 = sdy.manual_computation(%x) in_shardings=[<@grid, [{"p"}, {}]>] out_shardings=[<@grid, [{"p"}, {}]>] manual_axes={"p"} (%y: tensor<4x8xf32>) {
    // expected-error @+1 {{'stablehlo.negate' op result - operates on axis "p" which is already bound by a parent sdy.manual_computation op}}
    %1 = stablehlo.negate %y {sdy.sharding = #sdy.sharding_per_value<[<@grid, [{}, {"p"}]>]>} : tensor<4x8xf32>
    sdy.return %1 : tensor<4x8xf32>
  } : (tensor<16x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
