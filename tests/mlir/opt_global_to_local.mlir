// -sdy-convert-global-to-local on a 2x2 mesh: per-device types and each
// sdy collective as the StableHLO ops Shardy's pass makes of it.
sdy.mesh @m = <["a"=2, "b"=2]>
sdy.mesh @r = <["a"=2, "b"=2], device_ids=[3, 2, 1, 0]>

func.func @types(%arg0: tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>},
                 %arg1: tensor<6x4xf32>) -> (tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}, tensor<6x4xf32>) {
  %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>]>} : tensor<8x6xf32>
  return %0, %arg1 : tensor<8x6xf32>, tensor<6x4xf32>
}

func.func @gather(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"a", "b"}, {}]>}) -> tensor<8x4xf32> {
  %0 = sdy.all_gather [{"b"}, {}] %arg0 out_sharding=<@m, [{"a"}, {}]> : tensor<8x4xf32>
  %1 = sdy.all_gather [{"a"}, {}] %0 out_sharding=<@m, [{}, {}]> : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

func.func @gather_two_dims(%arg0: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {"b"}]>}) -> tensor<4x6xf32> {
  %0 = sdy.all_gather [{"a"}, {"b"}] %arg0 out_sharding=<@m, [{}, {}]> : tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

func.func @reduce(%arg0: tensor<4x2xi32> {sdy.sharding = #sdy.sharding<@m, [{}, {"b"}]>}) -> (tensor<4x2xi32> {sdy.sharding = #sdy.sharding<@m, [{}, {"b"}]>}) {
  %0 = sdy.all_reduce max {"a"} %arg0 out_sharding=<@m, [{}, {"b"}]> : tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

func.func @scatter(%arg0: tensor<4x8xf32>) -> (tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"b"}]>}) {
  %0 = sdy.reduce_scatter [{}, {"b"}] %arg0 out_sharding=<@m, [{}, {"b"}]> : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

func.func @move(%arg0: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) -> (tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"a"}]>}) {
  %0 = sdy.all_to_all [{"a"}: 0->1] %arg0 out_sharding=<@m, [{}, {"a"}]> : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

func.func @permute(%arg0: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {"b"}]>}) -> (tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"b"}, {"a"}]>}) {
  %0 = sdy.collective_permute %arg0 out_sharding=<@m, [{"b"}, {"a"}]> : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

func.func @permute_devices(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@m, [{"a", "b"}]>}) -> (tensor<4xf32> {sdy.sharding = #sdy.sharding<@r, [{"a", "b"}]>}) {
  %0 = sdy.collective_permute %arg0 out_sharding=<@r, [{"a", "b"}]> : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @slice(%arg0: tensor<4x8xf32>) -> (tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"b"}]>}) {
  %0 = sdy.all_slice [{}, {"b"}] %arg0 out_sharding=<@m, [{}, {"b"}]> : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

func.func @iota() -> (tensor<6x4xi32> {sdy.sharding = #sdy.sharding<@m, [{}, {"b"}]>}) {
  %0 = stablehlo.iota dim = 1 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}, {"b"}]>]>} : tensor<6x4xi32>
  return %0 : tensor<6x4xi32>
}

func.func @constants() -> (tensor<4xi32> {sdy.sharding = #sdy.sharding<@m, [{"b"}]>}, tensor<2x2xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) {
  %0 = sdy.constant {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"b"}]>]>} dense<[10, 20, 30, 40]> : tensor<4xi32>
  %1 = sdy.constant {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>]>} dense<2.5> : tensor<2x2xf32>
  return %0, %1 : tensor<4xi32>, tensor<2x2xf32>
}

func.func @window_slice(%arg0: tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) -> (tensor<8x2xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) {
  %0 = stablehlo.slice %arg0 [0:8, 1:5:2] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>]>} : (tensor<8x6xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

func.func @conv(%arg0: tensor<4x6x6x2xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}, {}, {}]>},
                %arg1: tensor<3x3x2x4xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {}, {}, {"a"}]>})
    -> (tensor<2x4x4x4xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {}, {}, {"a"}]>}) {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {}
    {batch_group_count = 2 : i64, feature_group_count = 1 : i64,
     sdy.sharding = #sdy.sharding_per_value<[<@m, [{}, {}, {}, {"a"}]>]>}
    : (tensor<4x6x6x2xf32>, tensor<3x3x2x4xf32>) -> tensor<2x4x4x4xf32>
  return %0 : tensor<2x4x4x4xf32>
}
