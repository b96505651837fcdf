sdy.mesh @a = <["x"=2, "x"=2]>
sdy.mesh @b = <["x"=0]>
sdy.mesh @c = <["x"=2, "y"=2], device_ids=[0, 1, 2]>
sdy.mesh @d = <["x"=2], device_ids=[1, 1]>
sdy.mesh @d = <["y"=2]>
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
