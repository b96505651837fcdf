// sdy.manual_computation checked as Shardy's verifier checks it: one
// sharding per operand and result, manual axes of the common mesh and not
// already manual, manual axes first in a dim, dims divisible by them, and
// the body's types the local ones the shardings give.
sdy.mesh @grid = <["p"=4, "q"=2]>

func.func @too_many_in(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'sdy.manual_computation' op operand shardings don't match number of values: 2 shardings vs 1 values}}
  %0 = sdy.manual_computation(%x) in_shardings=[<@grid, [{"p"}]>, <@grid, [{}]>] out_shardings=[<@grid, [{"p"}]>] manual_axes={"p"} (%y: tensor<4xf32>) {
    sdy.return %y : tensor<4xf32>
  } : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

func.func @unknown_manual(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'sdy.manual_computation' op unknown manual axis: "t"}}
  %0 = sdy.manual_computation(%x) in_shardings=[<@grid, [{"p"}]>] out_shardings=[<@grid, [{"p"}]>] manual_axes={"t"} (%y: tensor<4xf32>) {
    sdy.return %y : tensor<4xf32>
  } : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>
sdy.mesh @other = <["p"=4, "q"=2, "s"=2]>

func.func @two_meshes(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'sdy.manual_computation' op all in and out shardings must be bound to the same mesh or an empty mesh.}}
  %0 = sdy.manual_computation(%x) in_shardings=[<@grid, [{"p"}]>] out_shardings=[<@other, [{"p"}]>] manual_axes={"p"} (%y: tensor<4xf32>) {
    sdy.return %y : tensor<4xf32>
  } : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

func.func @free_then_manual(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'sdy.manual_computation' op result sharding at index 0 must have all manual axes come before free axes in its dimension sharding at index 0. Saw manual axis "p" after free axis "q"}}
  %0 = sdy.manual_computation(%x) in_shardings=[<@grid, [{"p"}]>] out_shardings=[<@grid, [{"q", "p"}]>] manual_axes={"p"} (%y: tensor<4xf32>) {
    sdy.return %y : tensor<4xf32>
  } : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

func.func @not_divisible(%x: tensor<10xf32>) -> tensor<10xf32> {
  // expected-error @+1 {{'sdy.manual_computation' op operand dimension size 10 is not divisible by the manual axes size 4}}
  %0 = sdy.manual_computation(%x) in_shardings=[<@grid, [{"p"}]>] out_shardings=[<@grid, [{}]>] manual_axes={"p"} (%y: tensor<3xf32>) {
    sdy.return %y : tensor<3xf32>
  } : (tensor<10xf32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

func.func @local_shape(%x: tensor<16x6xf32>) -> tensor<16x6xf32> {
  // expected-error @+1 {{'sdy.manual_computation' op operand shape, corresponding sharding, and region operand shape at index 0 must match. Expected local shape 'tensor<4x6xf32>', actual local shape 'tensor<8x6xf32>'}}
  %0 = sdy.manual_computation(%x) in_shardings=[<@grid, [{"p"}, {}]>] out_shardings=[<@grid, [{}, {}]>] manual_axes={"p"} (%y: tensor<8x6xf32>) {
    sdy.return %y : tensor<8x6xf32>
  } : (tensor<16x6xf32>) -> tensor<16x6xf32>
  return %0 : tensor<16x6xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

func.func @region_results(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'sdy.manual_computation' op number of op results and region results must match. Op has 1 op results and 2 region results}}
  %0 = sdy.manual_computation(%x) in_shardings=[<@grid, [{"p"}]>] out_shardings=[<@grid, [{"p"}]>] manual_axes={"p"} (%y: tensor<4xf32>) {
    sdy.return %y, %y : tensor<4xf32>, tensor<4xf32>
  } : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

func.func @nested_same_axis(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-note @+1 {{parent bounding this axis as manual}}
  %0 = sdy.manual_computation(%x) in_shardings=[<@grid, [{"p"}]>] out_shardings=[<@grid, [{"p"}]>] manual_axes={"p"} (%y: tensor<4xf32>) {
    // expected-error @+1 {{'sdy.manual_computation' op operates on axis "p" which is already bound by a parent sdy.manual_computation op}}
    %1 = sdy.manual_computation(%y) in_shardings=[<@grid, [{}]>] out_shardings=[<@grid, [{}]>] manual_axes={"p"} (%z: tensor<4xf32>) {
      sdy.return %z : tensor<4xf32>
    } : (tensor<4xf32>) -> tensor<4xf32>
    sdy.return %1 : tensor<4xf32>
  } : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

sdy.mesh @grid = <["p"=4, "q"=2]>

func.func @isolated(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = sdy.manual_computation(%x) in_shardings=[<@grid, [{"p"}]>] out_shardings=[<@grid, [{"p"}]>] manual_axes={"p"} (%y: tensor<4xf32>) {
    // expected-error @+1 {{'stablehlo.multiply' op using value defined outside the region}}
    %1 = stablehlo.multiply %y, %x : tensor<4xf32>
    sdy.return %1 : tensor<4xf32>
  } : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}
