// A sharding text read before outside a manual computation (the streamed
// reader's memo, import_sharding.c) is checked again inside one: axis "a"
// is manual there.
module {
  sdy.mesh @mesh = <["a"=2, "b"=4]>
  func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %v = stablehlo.add %x, %x {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a"}, {}]>]>} : tensor<8x16xf32>
    %m = sdy.manual_computation(%v) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] manual_axes={"a"} (%arg0: tensor<4x16xf32>) {
      %w = stablehlo.add %arg0, %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a"}, {}]>]>} : tensor<4x16xf32>
      sdy.return %w : tensor<4x16xf32>
    } : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %m : tensor<8x16xf32>
  }
}
