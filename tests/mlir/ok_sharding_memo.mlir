// The streamed reader's memo of sharding texts (parse_sdy_fast.c, import_sharding.c):
// a text read again is copied, on values of any rank, past the memo's 16 texts,
// with sub-axes, open dims and priorities kept, and inside a manual computation.
module {
  sdy.mesh @mesh = <["a"=2, "b"=4]>
  func.func @main(%x: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>}, %y: tensor<8x16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, []>}) -> tensor<8x16xf32> {
    %v1 = stablehlo.add %x, %x {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a"}, {}]>]>} : tensor<8x16xf32>
    %v2 = stablehlo.add %v1, %v1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a"}, {}]>]>} : tensor<8x16xf32>
    %v3 = stablehlo.add %v2, %v2 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, []>]>} : tensor<8x16xf32>
    %v4 = stablehlo.add %y, %y {sdy.sharding = #sdy.sharding_per_value<[<@mesh, []>]>} : tensor<8x16x4xf32>
    %v5 = stablehlo.add %y, %y {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}, {"b"}]>]>} : tensor<8x16x4xf32>
    %v6 = stablehlo.add %v3, %v3 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a", ?}p1, {"b":(1)2}]>]>} : tensor<8x16xf32>
    %v7 = stablehlo.add %v6, %v6 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a", ?}p1, {"b":(1)2}]>]>} : tensor<8x16xf32>
    %v8 = stablehlo.add %v7, %v7 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a", ?}p1, {"b":(2)2}]>]>} : tensor<8x16xf32>
    %v9 = stablehlo.add %v8, %v8 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p0, {?}]>]>} : tensor<8x16xf32>
    %v10 = stablehlo.add %v9, %v9 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p1, {?}]>]>} : tensor<8x16xf32>
    %v11 = stablehlo.add %v10, %v10 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p2, {?}]>]>} : tensor<8x16xf32>
    %v12 = stablehlo.add %v11, %v11 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p3, {?}]>]>} : tensor<8x16xf32>
    %v13 = stablehlo.add %v12, %v12 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p4, {?}]>]>} : tensor<8x16xf32>
    %v14 = stablehlo.add %v13, %v13 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p5, {?}]>]>} : tensor<8x16xf32>
    %v15 = stablehlo.add %v14, %v14 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p6, {?}]>]>} : tensor<8x16xf32>
    %v16 = stablehlo.add %v15, %v15 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p7, {?}]>]>} : tensor<8x16xf32>
    %v17 = stablehlo.add %v16, %v16 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p8, {?}]>]>} : tensor<8x16xf32>
    %v18 = stablehlo.add %v17, %v17 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p9, {?}]>]>} : tensor<8x16xf32>
    %v19 = stablehlo.add %v18, %v18 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p10, {?}]>]>} : tensor<8x16xf32>
    %v20 = stablehlo.add %v19, %v19 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p11, {?}]>]>} : tensor<8x16xf32>
    %v21 = stablehlo.add %v20, %v20 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p12, {?}]>]>} : tensor<8x16xf32>
    %v22 = stablehlo.add %v21, %v21 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p13, {?}]>]>} : tensor<8x16xf32>
    %v23 = stablehlo.add %v22, %v22 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p14, {?}]>]>} : tensor<8x16xf32>
    %v24 = stablehlo.add %v23, %v23 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p15, {?}]>]>} : tensor<8x16xf32>
    %v25 = stablehlo.add %v24, %v24 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p16, {?}]>]>} : tensor<8x16xf32>
    %v26 = stablehlo.add %v25, %v25 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p17, {?}]>]>} : tensor<8x16xf32>
    %v27 = stablehlo.add %v26, %v26 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p18, {?}]>]>} : tensor<8x16xf32>
    %v28 = stablehlo.add %v27, %v27 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p19, {?}]>]>} : tensor<8x16xf32>
    %v29 = stablehlo.add %v28, %v28 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p0, {?}]>]>} : tensor<8x16xf32>
    %v30 = stablehlo.add %v29, %v29 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p3, {?}]>]>} : tensor<8x16xf32>
    %v31 = stablehlo.add %v30, %v30 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p17, {?}]>]>} : tensor<8x16xf32>
    %v32 = stablehlo.add %v31, %v31 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p19, {?}]>]>} : tensor<8x16xf32>
    %v33 = stablehlo.add %v32, %v32 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}p18, {?}]>]>} : tensor<8x16xf32>
    %v34 = stablehlo.add %v33, %v33 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a"}, {}]>]>} : tensor<8x16xf32>
    %m = sdy.manual_computation(%v34) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] manual_axes={"a"} (%arg0: tensor<4x16xf32>) {
      %w = stablehlo.add %arg0, %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {"b"}]>]>} : tensor<4x16xf32>
      %u = stablehlo.add %w, %w {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {"b"}]>]>} : tensor<4x16xf32>
      sdy.return %u : tensor<4x16xf32>
    } : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %z = stablehlo.add %m, %m {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {"b"}]>]>} : tensor<8x16xf32>
    return %z : tensor<8x16xf32>
  }
}
