sdy.mesh @dev0 = <[], device_ids=[0]>

// expected-error @+1 {{function argument 1 cannot have a single-device (maximal) sharding attribute}}
func.func @argument(%a: tensor<4xf32>, %b: tensor<4xf32> {sdy.sharding = #sdy.sharding<@dev0, []>}) -> tensor<4xf32> {
  return %b : tensor<4xf32>
}

// -----

sdy.mesh @dev0 = <[], device_ids=[0]>

// expected-error @+1 {{function result 0 cannot have a single-device (maximal) sharding attribute}}
func.func @result(%a: tensor<4xf32>) -> (tensor<4xf32> {sdy.sharding = #sdy.sharding<@dev0, []>}) {
  return %a : tensor<4xf32>
}

// -----

sdy.mesh @dev0 = <[], device_ids=[0]>
sdy.mesh @dev3 = <[], device_ids=[3]>
sdy.mesh @m = <["x"=4]>

func.func @two_devices(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.custom_call' op has conflicting single-device result shardings}}
  %0:2 = stablehlo.custom_call @f(%a) {sdy.sharding = #sdy.sharding_per_value<[<@dev0, []>, <@dev3, []>]>} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}
