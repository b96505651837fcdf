sdy.mesh @mesh = <["x"=2, "y"=3]>

func.func @boundaries(%arg0: tensor<?x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>},
                      %arg1: tensor<*xi32>, %arg2: tensor<0x?x9223372036854775807xbf16>)
    -> (tensor<?x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y", ?}]>}, tensor<*xi32>, tensor<0x?x9223372036854775807xbf16>) {
  return %arg0, %arg1, %arg2 : tensor<?x6xf32>, tensor<*xi32>, tensor<0x?x9223372036854775807xbf16>
}

func.func @unranked(%arg0: tensor<*xf32>) -> tensor<*xf32> {
  func.return %arg0 : tensor<*xf32>
}
