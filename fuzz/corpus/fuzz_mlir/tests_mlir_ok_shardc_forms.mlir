sdy.mesh @mesh = <["x"=2]>
func.func @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<8xi1>) {
  %0 = "shardc.relu"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %1 = "shardc.gelu"(%0) {approximate = false, sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %2 = stablehlo.broadcast_in_dim %arg1, dims = [1] {shardc.implicit_broadcast} : (tensor<16xf32>) -> tensor<8x16xf32>
  %3 = stablehlo.add %1, %2 : tensor<8x16xf32>
  %cst = stablehlo.constant {shardc.implicit_constant} dense<0.000000e+00> : tensor<f32>
  %4 = stablehlo.reduce(%3 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  %5 = "shardc.einsum"(%arg0, %arg2) {spec = "ij,ij->ij"} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %6 = "shardc.reduce_mean"(%5) {dims = [1], shardings = [<@mesh, [{"x"}]>]} : (tensor<8x16xf32>) -> tensor<8xf32>
  %7 = "shardc.full"() {value = 1.5} : () -> tensor<8x16xf32>
  %8 = stablehlo.pad %4, %cst, low = [1], high = [0], interior = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<9xf32>
  %9 = stablehlo.slice %8 [1:9] : (tensor<9xf32>) -> tensor<8xf32>
  %10 = sdy.manual_computation(%9) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg3: tensor<4xf32>) {
    %11 = "shardc.psum"(%arg3) {axes = ["x"]} : (tensor<4xf32>) -> tensor<4xf32>
    sdy.return %11 : tensor<4xf32>
  } {shardc.check_vma = true, shardc.pad_uneven = false} : (tensor<8xf32>) -> tensor<8xf32>
  %12 = stablehlo.broadcast_in_dim %10, dims = [0] {shardc.implicit_broadcast} : (tensor<8xf32>) -> tensor<8xf32>
  %13 = stablehlo.compare GT, %9, %12 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  return %7, %9, %3, %6, %13 : tensor<8x16xf32>, tensor<8xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<8xi1>
}
