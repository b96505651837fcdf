// shardc numbers a mesh's devices 0..N-1: a maximal mesh on device 3 has
// no shardc equivalent.
sdy.mesh @maximal = <[], device_ids=[3]>
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
