// The splitter and calls: @scale holds only constant-preserving ops, so a
// call of it on a constant is a constant expression, copied for each of
// its two users; each copy calls its own copy of @scale, and of @twice,
// which @scale calls (callees copied first: @twice_0, @scale_1, then
// @twice_2, @scale_3). @stateful holds a dot, so its call is not copied,
// though its operand, a constant, is. A group of two shapes is left alone:
// only the group import checks groups.
func.func @main(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %c = stablehlo.constant {note} dense<2.0> : tensor<4x4xf32>
  %s = call @scale(%c) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %a = stablehlo.add %x, %s : tensor<4x4xf32>
  %b = stablehlo.multiply %x, %s : tensor<4x4xf32>
  %d = call @stateful(%c, %x) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  sdy.sharding_group %x group_id = 3 : tensor<4x4xf32>
  sdy.sharding_group %d group_id = 3 : tensor<4x4xf32>
  return %a, %b, %d : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

func.func private @scale(%v: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = call @twice(%v) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = stablehlo.negate %0 : tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}

func.func private @twice(%v: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.add %v, %v : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

func.func private @stateful(%v: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.dot %v, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = stablehlo.reshape %0 : (tensor<4x4xf32>) -> tensor<2x8xf32>
  sdy.sharding_group %1 group_id = 3 : tensor<2x8xf32>
  return %0 : tensor<4x4xf32>
}

// @feeds's own constant call is copied while @feeds is split (@twice_4);
// @fed's two uses of a call of @feeds then copy @feeds and the copy
// @twice_4 it calls: copies of a copy are named after it (@twice_4_5)
// and keep the first original's name.
func.func @fed() -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = call @feeds() : () -> tensor<4x4xf32>
  %1 = stablehlo.abs %0 : tensor<4x4xf32>
  %2 = stablehlo.abs %0 : tensor<4x4xf32>
  return %1, %2 : tensor<4x4xf32>, tensor<4x4xf32>
}

func.func private @feeds() -> tensor<4x4xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<4x4xf32>
  %0 = call @twice(%c) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
