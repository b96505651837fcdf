// stablehlo.bitcast_convert between widths, on constants computed by hand
// (little-endian, as XLA's CPU backend): u64 4294967298 = 0x0000000100000002
// is ui32 [2, 1] (low word first); f64 -2.0 = 0xC000000000000000 is
// f16 [0, 0, 0, -2.0] (f16 0xC000 is -2.0); ui32 [0, 1072693248] (0x3FF00000 high) is f64 1.0.
func.func @main() -> (tensor<1x2xui32>, tensor<4xf16>, tensor<1xf64>) {
  %w = stablehlo.constant dense<[4294967298]> : tensor<1xui64>
  %0 = stablehlo.bitcast_convert %w : (tensor<1xui64>) -> tensor<1x2xui32>
  %d = stablehlo.constant dense<-2.0> : tensor<f64>
  %1 = stablehlo.bitcast_convert %d : (tensor<f64>) -> tensor<4xf16>
  %n = stablehlo.constant dense<[[0, 1072693248]]> : tensor<1x2xui32>
  %2 = stablehlo.bitcast_convert %n : (tensor<1x2xui32>) -> tensor<1xf64>
  return %0, %1, %2 : tensor<1x2xui32>, tensor<4xf16>, tensor<1xf64>
}
