func.func @main(%arg0: tensor<6x6xf32> {mhlo.sharding = "{devices=[2,3]<=[6]}"},
                %arg1: tensor<6x6xf32> {mhlo.sharding = "{devices=[3,2]<=[6]}"}) -> tensor<6x6xf32> {
  return %arg0 : tensor<6x6xf32>
}
