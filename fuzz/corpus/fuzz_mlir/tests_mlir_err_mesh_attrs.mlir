sdy.mesh @a = <["x"=2]> {shardc.explicit_axes = ["z"]}
sdy.mesh @b = <["x"=2]> {shardc.explicit_axes = 3}
sdy.mesh @c = <["x"=2]> {foo.bar = 1}
func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}
