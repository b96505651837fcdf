// A sub-axis of size 0 was the MLIR reader's mark for the whole axis, so
// {"a":(0)0} and {"a":(2)0} were silently taken as "a": now both are
// errors in Shardy's words.
sdy.mesh @m = <["a"=4]>
func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a":(0)0}]>},
             %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a":(2)0}]>}) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
}
