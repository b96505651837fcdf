sdy.mesh @m = <["p"=2, "q"=2]>

func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"p", "q"}p1, {?}]>}) -> tensor<8x8xf32> {
  %0 = sdy.manual_computation(%arg0)
      in_shardings=[<@m, [{"p", "q"}p1, {?}]>]
      out_shardings=[<@m, [{"p", ?}, {"q", ?}p0]>] manual_axes={"p"}
      (%arg1: tensor<4x8xf32>) {
    %1 = stablehlo.negate %arg1 : tensor<4x8xf32>
    sdy.return %1 : tensor<4x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
