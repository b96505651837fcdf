func.func @custom(%arg0: tensor<*xf32>) {
  stablehlo.custom_call @foo(%arg0) {has_side_effect = true} : (tensor<*xf32>) -> ()
  return
}
