// Dynamic arguments of a function other than the entry, under Shardy's
// dedup-functions-fully pipeline: no func_data_flow_edge is added on them
// (Shardy's add_func_data_flow_edges skips all but static-shaped tensors),
// and each result still takes its returned value's sharding
// (PropagateToFuncResults), closed by the export.
sdy.mesh @mesh = <["x"=2, "y"=2]>

func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

func.func @other(%arg0: tensor<?x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", ?}, {?}]>}, %arg1: tensor<*xf32>)
    -> (tensor<?x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}, {"y", ?}]>}, tensor<*xf32>) {
  return %arg0, %arg1 : tensor<?x4xf32>, tensor<*xf32>
}
