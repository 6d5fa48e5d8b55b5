// The elementwise functions whose CPU kernels compute exp, log, tanh, erf,
// expm1, log1p, sqrt and floor inline (--nnc-cpu-inline-math), on 4096
// values that check_math.py writes and checks.
func.func @main(%x: tensor<4096xf32>)
    -> (tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>,
        tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>,
        tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>,
        tensor<4096xf32>, tensor<4096xf32>) {
  %exp = nnc.exp %x : tensor<4096xf32>
  %log = nnc.log %x : tensor<4096xf32>
  %tanh = nnc.tanh %x : tensor<4096xf32>
  %erf = nnc.erf %x : tensor<4096xf32>
  %sigmoid = nnc.sigmoid %x : tensor<4096xf32>
  %gelu = nnc.gelu %x : tensor<4096xf32>
  %gelu_tanh = nnc.gelu %x approximation = tanh : tensor<4096xf32>
  %elu = nnc.elu %x : tensor<4096xf32>
  %softplus = nnc.softplus %x : tensor<4096xf32>
  %sqrt = nnc.sqrt %x : tensor<4096xf32>
  %floor = nnc.floor %x : tensor<4096xf32>
  return %exp, %log, %tanh, %erf, %sigmoid, %gelu, %gelu_tanh, %elu,
         %softplus, %sqrt, %floor
      : tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>,
        tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>,
        tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>,
        tensor<4096xf32>, tensor<4096xf32>
}
