sdy.mesh @m = <["x"=2]>

func.func @main(%arg0: !stablehlo.token {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> !stablehlo.token {
  %0 = sdy.sharding_constraint %arg0 <@m, [], replicated={"x"}> : !stablehlo.token
  return %0 : !stablehlo.token
}
