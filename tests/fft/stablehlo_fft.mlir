// StableHLO's fft, real, imag and complex as JAX writes them (jnp.fft.fft,
// rfft, irfft; lax.complex, real, imag), in the custom and the generic
// form, read by shardc and run on 4 devices against one
// (tests/fft/stablehlo_fft.test).
module {
  sdy.mesh @m = <["x"=2, "y"=2]>
  func.func @main(%a: tensor<6x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {"y"}]>}, %b: tensor<6x8xf32>) -> (tensor<6x8xcomplex<f32>>, tensor<6x5xcomplex<f32>>, tensor<6x8xf32>, tensor<6x8xf32>) {
    %z = stablehlo.complex %a, %b : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xcomplex<f32>>
    %f = stablehlo.fft %z, type = FFT, length = [8] : (tensor<6x8xcomplex<f32>>) -> tensor<6x8xcomplex<f32>>
    %r = "stablehlo.fft"(%a) {fft_type = #stablehlo<fft_type RFFT>, fft_length = array<i64: 8>} : (tensor<6x8xf32>) -> tensor<6x5xcomplex<f32>>
    %ir = stablehlo.fft %r, type = IRFFT, length = [8] : (tensor<6x5xcomplex<f32>>) -> tensor<6x8xf32>
    %g = stablehlo.fft %f, type = IFFT, length = [6, 8] : (tensor<6x8xcomplex<f32>>) -> tensor<6x8xcomplex<f32>>
    %re = stablehlo.real %g : (tensor<6x8xcomplex<f32>>) -> tensor<6x8xf32>
    %im = "stablehlo.imag"(%g) : (tensor<6x8xcomplex<f32>>) -> tensor<6x8xf32>
    %d = stablehlo.subtract %ir, %a : tensor<6x8xf32>
    return %f, %r, %d, %im : tensor<6x8xcomplex<f32>>, tensor<6x5xcomplex<f32>>, tensor<6x8xf32>, tensor<6x8xf32>
  }
}
