// The CNN of nnc-trace-examples: two conv + batch_norm + relu + max_pool
// blocks (batch-norm statistics are buffers), global average pooling,
// flatten and a gemm classifier, with a dynamic batch.
// RUN: nnc-trace-examples cnn | FileCheck %s
// RUN: nnc-trace-examples cnn | nnc-opt | FileCheck %s
// RUN: nnc-trace-examples cnn | nnc-opt --nnc-shape-inference="input-shapes=0:8x1x28x28" | FileCheck %s --check-prefix=SPEC

// CHECK-LABEL: func.func @cnn(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x1x28x28xf32>,
// CHECK-SAME: %[[W1:[^:]*]]: tensor<8x1x3x3xf32> {nnc.param = #nnc.param<trainable>},
// CHECK-SAME: %[[C1:[^:]*]]: tensor<8xf32> {nnc.param = #nnc.param<trainable>},
// CHECK-SAME: %[[G1:[^:]*]]: tensor<8xf32> {nnc.param = #nnc.param<trainable>},
// CHECK-SAME: %[[BE1:[^:]*]]: tensor<8xf32> {nnc.param = #nnc.param<trainable>},
// CHECK-SAME: %[[M1:[^:]*]]: tensor<8xf32> {nnc.param = #nnc.param<buffer>},
// CHECK-SAME: %[[V1:[^:]*]]: tensor<8xf32> {nnc.param = #nnc.param<buffer>},
// CHECK-SAME: tensor<16x8x3x3xf32> {nnc.param = #nnc.param<trainable>},
// CHECK-SAME: tensor<16xf32> {nnc.param = #nnc.param<buffer>},
// CHECK-SAME: %[[FW:[^:]*]]: tensor<10x16xf32> {nnc.param = #nnc.param<trainable>},
// CHECK-SAME: %[[FB:[^:]*]]: tensor<10xf32> {nnc.param = #nnc.param<trainable>})
// CHECK-SAME: -> tensor<?x10xf32>
// CHECK: %[[CONV1:.*]] = nnc.conv %[[X]], %[[W1]], %[[C1]] pads = [1, 1, 1, 1] : tensor<?x1x28x28xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>
// CHECK: %[[BN1:.*]] = nnc.batch_norm %[[CONV1]], %[[G1]], %[[BE1]], %[[M1]], %[[V1]] : tensor<?x8x28x28xf32>
// CHECK: %[[R1:.*]] = nnc.relu %[[BN1]] : tensor<?x8x28x28xf32>
// CHECK: %[[P1:.*]] = nnc.max_pool %[[R1]] kernel_shape = [2, 2] strides = [2, 2] : tensor<?x8x28x28xf32>
// CHECK: %[[CONV2:.*]] = nnc.conv %[[P1]], {{.*}} pads = [1, 1, 1, 1] : tensor<?x8x14x14xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>
// CHECK: %[[BN2:.*]] = nnc.batch_norm %[[CONV2]], {{.*}} : tensor<?x16x14x14xf32>
// CHECK: %[[R2:.*]] = nnc.relu %[[BN2]] : tensor<?x16x14x14xf32>
// CHECK: %[[P2:.*]] = nnc.max_pool %[[R2]] kernel_shape = [2, 2] strides = [2, 2] : tensor<?x16x14x14xf32>
// CHECK: %[[GAP:.*]] = nnc.global_avg_pool %[[P2]] : tensor<?x16x7x7xf32>
// CHECK: %[[FLAT:.*]] = nnc.flatten %[[GAP]] : tensor<?x16x1x1xf32>
// CHECK: %[[OUT:.*]] = nnc.gemm %[[FLAT]], %[[FW]], %[[FB]] trans_b = true : tensor<?x16xf32>, tensor<10x16xf32>, tensor<10xf32>
// CHECK: return %[[OUT]] : tensor<?x10xf32>

// SPEC-LABEL: func.func @cnn(
// SPEC-SAME: tensor<8x1x28x28xf32>
// SPEC-SAME: -> tensor<8x10xf32>
// SPEC: nnc.conv {{.*}} : tensor<8x1x28x28xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>
// SPEC: nnc.batch_norm {{.*}} : tensor<8x8x28x28xf32>
// SPEC: nnc.relu {{.*}} : tensor<8x8x28x28xf32>
// SPEC: nnc.max_pool {{.*}} : tensor<8x8x28x28xf32>
// SPEC: nnc.conv {{.*}} : tensor<8x8x14x14xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>
// SPEC: nnc.max_pool {{.*}} : tensor<8x16x14x14xf32>
// SPEC: nnc.global_avg_pool {{.*}} : tensor<8x16x7x7xf32>
// SPEC: nnc.flatten {{.*}} : tensor<8x16x1x1xf32>
// SPEC: nnc.gemm {{.*}} : tensor<8x16xf32>, tensor<10x16xf32>, tensor<10xf32>
// SPEC: return {{.*}} : tensor<8x10xf32>
