// RUN: nnc-opt %s --nnc-convert-to-linalg %cpu_pipeline \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s

// Shape and indexing ops lowered to linalg/tensor/scf and JIT-executed on
// the CPU. Every result is flattened before printing; the expected values
// come from numpy (np.triu, np.take, np.pad, ...) and the ONNX reference
// loops for the scatters.

func.func @main() {
  %x34 = nnc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0],
                             [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>

  // np.triu(x, 1)
  // CHECK: [0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12]
  %triu = nnc.trilu %x34 k = 1 : tensor<3x4xf32>
  %triu_flat = nnc.reshape %triu : tensor<3x4xf32> -> tensor<12xf32>
  %triu_u = tensor.cast %triu_flat : tensor<12xf32> to tensor<*xf32>
  call @print(%triu_u) : (tensor<*xf32>) -> ()
  // np.tril(x, -1)
  // CHECK: [0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0]
  %tril = nnc.trilu %x34 upper = false k = -1 : tensor<3x4xf32>
  %tril_flat = nnc.reshape %tril : tensor<3x4xf32> -> tensor<12xf32>
  %tril_u = tensor.cast %tril_flat : tensor<12xf32> to tensor<*xf32>
  call @print(%tril_u) : (tensor<*xf32>) -> ()

  // Gather along axis 1 with 2-D, partly negative indices: np.take(x - 1,
  // [[0, -1], [2, -3]], axis=1).
  // CHECK: [0, 3, 2, 1, 4, 7, 6, 5, 8, 11, 10, 9]
  %one = nnc.constant dense<1.0> : tensor<3x4xf32>
  %x0 = nnc.sub %x34, %one : tensor<3x4xf32>, tensor<3x4xf32>
  %gidx = nnc.constant dense<[[0, -1], [2, -3]]> : tensor<2x2xi64>
  %g = nnc.gather %x0, %gidx axis = 1 : tensor<3x4xf32>, tensor<2x2xi64>
  %g_flat = nnc.reshape %g : tensor<3x2x2xf32> -> tensor<12xf32>
  %g_u = tensor.cast %g_flat : tensor<12xf32> to tensor<*xf32>
  call @print(%g_u) : (tensor<*xf32>) -> ()

  // gather_elements along axis -1 with i32 and negative indices.
  // CHECK: [3, 3, 4, 4, 8, 10]
  %geidx = nnc.constant dense<[[3, -1], [0, 0], [-4, 2]]> : tensor<3x2xi32>
  %ge = nnc.gather_elements %x0, %geidx axis = -1
      : tensor<3x4xf32>, tensor<3x2xi32>
  %ge_flat = nnc.reshape %ge : tensor<3x2xf32> -> tensor<6xf32>
  %ge_u = tensor.cast %ge_flat : tensor<6xf32> to tensor<*xf32>
  call @print(%ge_u) : (tensor<*xf32>) -> ()

  // one_hot at axis 0 with a negative index (-1 -> 3) and out-of-range
  // ones (5, -5: all off).
  // CHECK: [5, -1, -1, -1, 5, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 5, 5, -1, -1, -1]
  %ohidx = nnc.constant dense<[0, -1, 3, 5, -4, -5]> : tensor<6xi64>
  %oh = nnc.one_hot %ohidx depth = 4 axis = 0 on_value = 5.0
      off_value = -1.0 : tensor<6xi64> -> f32
  %oh_flat = nnc.reshape %oh : tensor<4x6xf32> -> tensor<24xf32>
  %oh_u = tensor.cast %oh_flat : tensor<24xf32> to tensor<*xf32>
  call @print(%oh_u) : (tensor<*xf32>) -> ()

  // cumsum along axis 1: plain, reverse, exclusive, both; then axis 0.
  %c = nnc.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  // CHECK: [1, 3, 6, 4, 9, 15]
  %cs = nnc.cumsum %c axis = 1 : tensor<2x3xf32>
  %cs_flat = nnc.reshape %cs : tensor<2x3xf32> -> tensor<6xf32>
  %cs_u = tensor.cast %cs_flat : tensor<6xf32> to tensor<*xf32>
  call @print(%cs_u) : (tensor<*xf32>) -> ()
  // CHECK: [6, 5, 3, 15, 11, 6]
  %csr = nnc.cumsum %c axis = -1 reverse = true : tensor<2x3xf32>
  %csr_flat = nnc.reshape %csr : tensor<2x3xf32> -> tensor<6xf32>
  %csr_u = tensor.cast %csr_flat : tensor<6xf32> to tensor<*xf32>
  call @print(%csr_u) : (tensor<*xf32>) -> ()
  // CHECK: [0, 1, 3, 0, 4, 9]
  %cse = nnc.cumsum %c axis = 1 exclusive = true : tensor<2x3xf32>
  %cse_flat = nnc.reshape %cse : tensor<2x3xf32> -> tensor<6xf32>
  %cse_u = tensor.cast %cse_flat : tensor<6xf32> to tensor<*xf32>
  call @print(%cse_u) : (tensor<*xf32>) -> ()
  // CHECK: [5, 3, 0, 11, 6, 0]
  %csre = nnc.cumsum %c axis = 1 exclusive = true reverse = true
      : tensor<2x3xf32>
  %csre_flat = nnc.reshape %csre : tensor<2x3xf32> -> tensor<6xf32>
  %csre_u = tensor.cast %csre_flat : tensor<6xf32> to tensor<*xf32>
  call @print(%csre_u) : (tensor<*xf32>) -> ()
  // CHECK: [0, 0, 0, 1, 2, 3]
  %cs0 = nnc.cumsum %c axis = 0 exclusive = true : tensor<2x3xf32>
  %cs0_flat = nnc.reshape %cs0 : tensor<2x3xf32> -> tensor<6xf32>
  %cs0_u = tensor.cast %cs0_flat : tensor<6xf32> to tensor<*xf32>
  call @print(%cs0_u) : (tensor<*xf32>) -> ()
  // f16 (accumulated in f32) and i32.
  // CHECK: [6, 5, 3, 15, 11, 6]
  %ch = nnc.cast %c : tensor<2x3xf32> to tensor<2x3xf16>
  %csh = nnc.cumsum %ch axis = 1 reverse = true : tensor<2x3xf16>
  %cshf = nnc.cast %csh : tensor<2x3xf16> to tensor<2x3xf32>
  %cshf_flat = nnc.reshape %cshf : tensor<2x3xf32> -> tensor<6xf32>
  %cshf_u = tensor.cast %cshf_flat : tensor<6xf32> to tensor<*xf32>
  call @print(%cshf_u) : (tensor<*xf32>) -> ()
  // CHECK: [0, 1, 3, 0, 4, 9]
  %ci = nnc.cast %c : tensor<2x3xf32> to tensor<2x3xi32>
  %csi = nnc.cumsum %ci axis = 1 exclusive = true : tensor<2x3xi32>
  %csif = nnc.cast %csi : tensor<2x3xi32> to tensor<2x3xf32>
  %csif_flat = nnc.reshape %csif : tensor<2x3xf32> -> tensor<6xf32>
  %csif_u = tensor.cast %csif_flat : tensor<6xf32> to tensor<*xf32>
  call @print(%csif_u) : (tensor<*xf32>) -> ()

  // scatter_elements along axis 1 with a duplicate (1 twice in row 0) and
  // negative (-1 -> 4) index, for every reduction.
  %sd = nnc.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0],
                            [6.0, 7.0, 8.0, 9.0, 10.0]]> : tensor<2x5xf32>
  %si = nnc.constant dense<[[1, -1, 1], [0, 0, 4]]> : tensor<2x3xi64>
  %su = nnc.constant dense<[[10.0, 20.0, 30.0], [-1.0, -2.0, -3.0]]>
      : tensor<2x3xf32>
  // CHECK: [1, 30, 3, 4, 20, -2, 7, 8, 9, -3]
  %se0 = nnc.scatter_elements %sd, %si, %su axis = 1
      : tensor<2x5xf32>, tensor<2x3xi64>, tensor<2x3xf32>
  %se0_flat = nnc.reshape %se0 : tensor<2x5xf32> -> tensor<10xf32>
  %se0_u = tensor.cast %se0_flat : tensor<10xf32> to tensor<*xf32>
  call @print(%se0_u) : (tensor<*xf32>) -> ()
  // CHECK: [1, 42, 3, 4, 25, 3, 7, 8, 9, 7]
  %se1 = nnc.scatter_elements %sd, %si, %su axis = 1 reduction = add
      : tensor<2x5xf32>, tensor<2x3xi64>, tensor<2x3xf32>
  %se1_flat = nnc.reshape %se1 : tensor<2x5xf32> -> tensor<10xf32>
  %se1_u = tensor.cast %se1_flat : tensor<10xf32> to tensor<*xf32>
  call @print(%se1_u) : (tensor<*xf32>) -> ()
  // CHECK: [1, 600, 3, 4, 100, 12, 7, 8, 9, -30]
  %se2 = nnc.scatter_elements %sd, %si, %su axis = 1 reduction = mul
      : tensor<2x5xf32>, tensor<2x3xi64>, tensor<2x3xf32>
  %se2_flat = nnc.reshape %se2 : tensor<2x5xf32> -> tensor<10xf32>
  %se2_u = tensor.cast %se2_flat : tensor<10xf32> to tensor<*xf32>
  call @print(%se2_u) : (tensor<*xf32>) -> ()
  // CHECK: [1, 30, 3, 4, 20, 6, 7, 8, 9, 10]
  %se3 = nnc.scatter_elements %sd, %si, %su axis = 1 reduction = max
      : tensor<2x5xf32>, tensor<2x3xi64>, tensor<2x3xf32>
  %se3_flat = nnc.reshape %se3 : tensor<2x5xf32> -> tensor<10xf32>
  %se3_u = tensor.cast %se3_flat : tensor<10xf32> to tensor<*xf32>
  call @print(%se3_u) : (tensor<*xf32>) -> ()
  // CHECK: [1, 2, 3, 4, 5, -2, 7, 8, 9, -3]
  %se4 = nnc.scatter_elements %sd, %si, %su axis = 1 reduction = min
      : tensor<2x5xf32>, tensor<2x3xi64>, tensor<2x3xf32>
  %se4_flat = nnc.reshape %se4 : tensor<2x5xf32> -> tensor<10xf32>
  %se4_u = tensor.cast %se4_flat : tensor<10xf32> to tensor<*xf32>
  call @print(%se4_u) : (tensor<*xf32>) -> ()
  // The data is not modified in place: it still reads as before.
  // CHECK: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
  %sd_flat = nnc.reshape %sd : tensor<2x5xf32> -> tensor<10xf32>
  %sd_u = tensor.cast %sd_flat : tensor<10xf32> to tensor<*xf32>
  call @print(%sd_u) : (tensor<*xf32>) -> ()

  // scatter_nd of rows [4] into [2, 3, 4] at [1, 2], [0, -1] and again
  // [1, 2].
  %nd0 = nnc.constant dense<1.0> : tensor<24xf32>
  %ndc = nnc.cumsum %nd0 axis = 0 exclusive = true : tensor<24xf32>
  %nd = nnc.reshape %ndc : tensor<24xf32> -> tensor<2x3x4xf32>
  %ni = nnc.constant dense<[[1, 2], [0, -1], [1, 2]]> : tensor<3x2xi64>
  %nu = nnc.constant dense<[[0.0, 10.0, 20.0, 30.0], [40.0, 50.0, 60.0, 70.0],
                            [80.0, 90.0, 100.0, 110.0]]> : tensor<3x4xf32>
  // CHECK: [0, 1, 2, 3, 4, 5, 6, 7, 40, 50, 60, 70, 12, 13, 14, 15, 16, 17, 18, 19, 80, 90, 100, 110]
  %sn0 = nnc.scatter_nd %nd, %ni, %nu
      : tensor<2x3x4xf32>, tensor<3x2xi64>, tensor<3x4xf32>
  %sn0_flat = nnc.reshape %sn0 : tensor<2x3x4xf32> -> tensor<24xf32>
  %sn0_u = tensor.cast %sn0_flat : tensor<24xf32> to tensor<*xf32>
  call @print(%sn0_u) : (tensor<*xf32>) -> ()
  // CHECK: [0, 1, 2, 3, 4, 5, 6, 7, 48, 59, 70, 81, 12, 13, 14, 15, 16, 17, 18, 19, 100, 121, 142, 163]
  %sn1 = nnc.scatter_nd %nd, %ni, %nu reduction = add
      : tensor<2x3x4xf32>, tensor<3x2xi64>, tensor<3x4xf32>
  %sn1_flat = nnc.reshape %sn1 : tensor<2x3x4xf32> -> tensor<24xf32>
  %sn1_u = tensor.cast %sn1_flat : tensor<24xf32> to tensor<*xf32>
  call @print(%sn1_u) : (tensor<*xf32>) -> ()
  // CHECK: [0, 1, 2, 3, 4, 5, 6, 7, 320, 450, 600, 770, 12, 13, 14, 15, 16, 17, 18, 19, 0, 18900, 44000, 75900]
  %sn2 = nnc.scatter_nd %nd, %ni, %nu reduction = mul
      : tensor<2x3x4xf32>, tensor<3x2xi64>, tensor<3x4xf32>
  %sn2_flat = nnc.reshape %sn2 : tensor<2x3x4xf32> -> tensor<24xf32>
  %sn2_u = tensor.cast %sn2_flat : tensor<24xf32> to tensor<*xf32>
  call @print(%sn2_u) : (tensor<*xf32>) -> ()
  // CHECK: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 0, 10, 20, 23]
  %sn3 = nnc.scatter_nd %nd, %ni, %nu reduction = min
      : tensor<2x3x4xf32>, tensor<3x2xi64>, tensor<3x4xf32>
  %sn3_flat = nnc.reshape %sn3 : tensor<2x3x4xf32> -> tensor<24xf32>
  %sn3_u = tensor.cast %sn3_flat : tensor<24xf32> to tensor<*xf32>
  call @print(%sn3_u) : (tensor<*xf32>) -> ()

  // depth_to_space of arange(16) as [1, 8, 1, 2], DCR and CRD;
  // space_to_depth of arange(16) as [1, 1, 4, 4].
  %r16 = nnc.reshape %ndc : tensor<24xf32> -> tensor<24xf32>
  %a16 = nnc.slice %r16 starts = [0] ends = [16] : tensor<24xf32>
  %d2sin = nnc.reshape %a16 : tensor<16xf32> -> tensor<1x8x1x2xf32>
  // CHECK: [0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15]
  %dcr = nnc.depth_to_space %d2sin blocksize = 2 : tensor<1x8x1x2xf32>
  %dcr_flat = nnc.reshape %dcr : tensor<1x2x2x4xf32> -> tensor<16xf32>
  %dcr_u = tensor.cast %dcr_flat : tensor<16xf32> to tensor<*xf32>
  call @print(%dcr_u) : (tensor<*xf32>) -> ()
  // CHECK: [0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15]
  %crd = nnc.depth_to_space %d2sin blocksize = 2 mode = "CRD"
      : tensor<1x8x1x2xf32>
  %crd_flat = nnc.reshape %crd : tensor<1x2x2x4xf32> -> tensor<16xf32>
  %crd_u = tensor.cast %crd_flat : tensor<16xf32> to tensor<*xf32>
  call @print(%crd_u) : (tensor<*xf32>) -> ()
  // CHECK: [0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15]
  %s2din = nnc.reshape %a16 : tensor<16xf32> -> tensor<1x1x4x4xf32>
  %s2d = nnc.space_to_depth %s2din blocksize = 2 : tensor<1x1x4x4xf32>
  %s2d_flat = nnc.reshape %s2d : tensor<1x4x2x2xf32> -> tensor<16xf32>
  %s2d_u = tensor.cast %s2d_flat : tensor<16xf32> to tensor<*xf32>
  call @print(%s2d_u) : (tensor<*xf32>) -> ()

  // np.tile([[1, 2], [3, 4]], (2, 3))
  // CHECK: [1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4]
  %t = nnc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %tile = nnc.tile %t repeats = [2, 3] : tensor<2x2xf32>
  %tile_flat = nnc.reshape %tile : tensor<4x6xf32> -> tensor<24xf32>
  %tile_u = tensor.cast %tile_flat : tensor<24xf32> to tensor<*xf32>
  call @print(%tile_u) : (tensor<*xf32>) -> ()

  // split into [1, 0, 2] along axis 1: the empty piece lies at offset 1.
  // CHECK: [1, 4]
  // CHECK: [2, 3, 5, 6]
  %sp:3 = nnc.split %c axis = 1 sizes = [1, 0, 2] : tensor<2x3xf32>
  %sp_0_flat = nnc.reshape %sp#0 : tensor<2x1xf32> -> tensor<2xf32>
  %sp_0_u = tensor.cast %sp_0_flat : tensor<2xf32> to tensor<*xf32>
  call @print(%sp_0_u) : (tensor<*xf32>) -> ()
  %sp_2_flat = nnc.reshape %sp#2 : tensor<2x2xf32> -> tensor<4xf32>
  %sp_2_u = tensor.cast %sp_2_flat : tensor<4xf32> to tensor<*xf32>
  call @print(%sp_2_u) : (tensor<*xf32>) -> ()

  // Pads of [[1, 2, 3], [4, 5, 6]] in every mode (np.pad), including pads
  // larger than the dimension for wrap and crops (negative pads), which
  // apply before padding.
  // CHECK: [6, 5, 4, 5, 6, 5, 3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5, 3, 2, 1, 2, 3, 2]
  %pr = nnc.pad %c pads = [1, 2, 1, 1] mode = reflect : tensor<2x3xf32>
  %pr_flat = nnc.reshape %pr : tensor<4x6xf32> -> tensor<24xf32>
  %pr_u = tensor.cast %pr_flat : tensor<24xf32> to tensor<*xf32>
  call @print(%pr_u) : (tensor<*xf32>) -> ()
  // CHECK: [1, 1, 1, 2, 3, 3, 3, 3, 1, 1, 1, 2, 3, 3, 3, 3, 4, 4, 4, 5, 6, 6, 6, 6]
  %pe = nnc.pad %c pads = [1, 2, 0, 3] mode = edge : tensor<2x3xf32>
  %pe_flat = nnc.reshape %pe : tensor<3x8xf32> -> tensor<24xf32>
  %pe_u = tensor.cast %pe_flat : tensor<24xf32> to tensor<*xf32>
  call @print(%pe_u) : (tensor<*xf32>) -> ()
  // wrap is periodic even for a pad larger than the dimension (as in numpy
  // >= 1.25; older numpy restarts the period at the pad's edge).
  // CHECK: [6, 4, 5, 6, 4, 5, 6, 4, 3, 1, 2, 3, 1, 2, 3, 1, 6, 4, 5, 6, 4, 5, 6, 4, 3, 1, 2, 3, 1, 2, 3, 1, 6, 4, 5, 6, 4, 5, 6, 4]
  %pw = nnc.pad %c pads = [1, 4, 2, 1] mode = wrap : tensor<2x3xf32>
  %pw_flat = nnc.reshape %pw : tensor<5x8xf32> -> tensor<40xf32>
  %pw_u = tensor.cast %pw_flat : tensor<40xf32> to tensor<*xf32>
  call @print(%pw_u) : (tensor<*xf32>) -> ()
  // CHECK: [2, 3, 3, 3, 2, 3, 3, 3, 5, 6, 6, 6]
  %pec = nnc.pad %c pads = [1, -1, 0, 2] mode = edge : tensor<2x3xf32>
  %pec_flat = nnc.reshape %pec : tensor<3x4xf32> -> tensor<12xf32>
  %pec_u = tensor.cast %pec_flat : tensor<12xf32> to tensor<*xf32>
  call @print(%pec_u) : (tensor<*xf32>) -> ()
  // CHECK: [4, 5, 6, -1]
  %pc = nnc.pad %c pads = [-1, 0, 0, 1] value = -1.0 : tensor<2x3xf32>
  %pc_flat = nnc.reshape %pc : tensor<1x4xf32> -> tensor<4xf32>
  %pc_u = tensor.cast %pc_flat : tensor<4xf32> to tensor<*xf32>
  call @print(%pc_u) : (tensor<*xf32>) -> ()

  // Slices with negative steps: x[3:0:-2, -1:-6:-3] and x[::-1, 1:4] of
  // arange(20) as [4, 5].
  // CHECK: [19, 16, 9, 6]
  %a20 = nnc.slice %r16 starts = [0] ends = [20] : tensor<24xf32>
  %x45 = nnc.reshape %a20 : tensor<20xf32> -> tensor<4x5xf32>
  %sl = nnc.slice %x45 starts = [3, -1] ends = [0, -6] steps = [-2, -3]
      : tensor<4x5xf32>
  %sl_flat = nnc.reshape %sl : tensor<2x2xf32> -> tensor<4xf32>
  %sl_u = tensor.cast %sl_flat : tensor<4xf32> to tensor<*xf32>
  call @print(%sl_u) : (tensor<*xf32>) -> ()
  // CHECK: [16, 17, 18, 11, 12, 13, 6, 7, 8, 1, 2, 3]
  %sl2 = nnc.slice %x45 starts = [-1, 1] ends = [-9223372036854775808, 4]
      steps = [-1, 1] : tensor<4x5xf32>
  %sl2_flat = nnc.reshape %sl2 : tensor<4x3xf32> -> tensor<12xf32>
  %sl2_u = tensor.cast %sl2_flat : tensor<12xf32> to tensor<*xf32>
  call @print(%sl2_u) : (tensor<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @print(%t: tensor<*xf32>) {
  %m = bufferization.to_buffer %t : tensor<*xf32> to memref<*xf32>
  call @printMemrefF32(%m) : (memref<*xf32>) -> ()
  return
}
