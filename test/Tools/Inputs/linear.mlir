// y = relu(x . w) and the mask y > 0, with w a frozen parameter
// whose value travels in nnc.value; the arguments carry no names, so nnc-run
// calls them input_<k> and the results output_<k>.
func.func @main(%x: tensor<2x2xf32>,
                %w: tensor<2x3xf32> {nnc.param = #nnc.param<frozen>,
                  nnc.value = dense<[[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]]>
                              : tensor<2x3xf32>})
    -> (tensor<2x3xf32>, tensor<2x3xi1>) {
  %0 = nnc.matmul %x, %w : tensor<2x2xf32>, tensor<2x3xf32>
  %1 = nnc.relu %0 : tensor<2x3xf32>
  %zero = nnc.constant dense<0.0> : tensor<2x3xf32>
  %2 = nnc.cmp gt, %1, %zero : tensor<2x3xf32>, tensor<2x3xf32>
  return %1, %2 : tensor<2x3xf32>, tensor<2x3xi1>
}
