// Ops lowered to generated loops only, each with a placeholder for its loop
// schedule (nnc.impl) that run-loop-schedules.mlir replaces by a schedule,
// or removes for the default rules.
func.func @main(%x: tensor<8x16x16x32xf32>, %g: tensor<32xf32>, %b: tensor<32xf32>) -> (tensor<8x16x16x32xf32>, tensor<8x16x8x16xf32>, tensor<8x16x16x32xf32>, tensor<8x16x1x32xf32>, tensor<8x16x16x32xf32>, tensor<8x16x16x32xf32>, tensor<8x16x1x1xf32>) {
  %s = nnc.sin %x : tensor<8x16x16x32xf32>
  %a = nnc.softmax %s {axis = 3 : i64, nnc.impl = "IMPL"} : tensor<8x16x16x32xf32>
  %p = nnc.max_pool %s kernel_shape = [2, 2] strides = [2, 2] {nnc.impl = "IMPL"} : tensor<8x16x16x32xf32>
  %l, %m, %r = nnc.layer_norm %s scale(%g : tensor<32xf32>) bias(%b : tensor<32xf32>) {nnc.impl = "IMPL"} : tensor<8x16x16x32xf32>
  %sum = nnc.reduce sum %s axes = [2] {nnc.impl = "IMPL"} : tensor<8x16x16x32xf32>
  %c = nnc.cumsum %s axis = 2 {nnc.impl = "IMPL"} : tensor<8x16x16x32xf32>
  %pg = nnc.max_pool_grad %s, %p kernel_shape = [2, 2] strides = [2, 2] {nnc.impl = "IMPL"} : tensor<8x16x16x32xf32>, tensor<8x16x8x16xf32>
  %gp = nnc.global_avg_pool %s {nnc.impl = "IMPL"} : tensor<8x16x16x32xf32>
  return %a, %p, %l, %sum, %c, %pg, %gp : tensor<8x16x16x32xf32>, tensor<8x16x8x16xf32>, tensor<8x16x16x32xf32>, tensor<8x16x1x32xf32>, tensor<8x16x16x32xf32>, tensor<8x16x16x32xf32>, tensor<8x16x1x1xf32>
}
