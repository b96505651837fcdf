// A sharding the scanner reads whole is named in syntax errors as the
// token it starts with, and '#sdy.sharding<' is listed once among the
// expected tokens (the grammar takes it both ways): the same message as
// when every token is read alone.
sdy.mesh @mesh = <["a"=4]>
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.add %x, %x {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a"}]>, #sdy.sharding_per_value<[]>]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
