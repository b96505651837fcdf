// shardc compiles and runs static shapes only: a dynamic or unranked
// value is refused where it is defined, by name, whatever the stage asked
// for (err_dynamic_run.test, err_dynamic_partitioned.test).
sdy.mesh @mesh = <["x"=2]>

func.func @main(%arg0: tensor<8x8xf32>, %arg1: tensor<?x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
