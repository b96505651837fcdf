sdy.mesh @m = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}]>}, %arg1: tensor<8xf32>, %arg2: tensor<i32>, %arg3: tensor<i1>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %c_0 = stablehlo.constant dense<4> : tensor<i32>
  %0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_1 = %c) : tensor<8xf32>, tensor<i32> attributes {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a", ?}]>, <@m, []>]>}
   cond {
    %5 = stablehlo.compare  LT, %iterArg_1, %c_0 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %5 : tensor<i1>
  } do {
    %5 = stablehlo.add %iterArg, %arg1 : tensor<8xf32>
    stablehlo.return %5, %iterArg_1 : tensor<8xf32>, tensor<i32>
  }
  %1 = "stablehlo.while"(%arg1) ({
  ^bb0(%arg4: tensor<8xf32>):
    %5 = stablehlo.compare  LT, %c, %c_0 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %5 : tensor<i1>
  }, {
  ^bb0(%arg4: tensor<8xf32>):
    stablehlo.return %arg4 : tensor<8xf32>
  }) : (tensor<8xf32>) -> tensor<8xf32>
  %2 = "stablehlo.case"(%arg2) ({
    stablehlo.return %arg0 : tensor<8xf32>
  }, {
    %5 = stablehlo.negate %arg0 : tensor<8xf32>
    stablehlo.return %5 : tensor<8xf32>
  }) : (tensor<i32>) -> tensor<8xf32>
  %3 = "stablehlo.if"(%arg3) ({
    stablehlo.return %0#0 : tensor<8xf32>
  }, {
    stablehlo.return %1 : tensor<8xf32>
  }) : (tensor<i1>) -> tensor<8xf32>
  %4:2 = stablehlo.optimization_barrier %2, %3 : tensor<8xf32>, tensor<8xf32>
  return %4#0, %4#1, %0#0 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
