// RUN: nnc-opt %s --split-input-file -verify-diagnostics --nnc-outline-kernels | FileCheck %s
// RUN: nnc-opt %s --split-input-file -verify-diagnostics --nnc-outline-kernels=horizontal=false | FileCheck %s --check-prefix=NOH
// RUN: nnc-opt %s --split-input-file -verify-diagnostics --nnc-outline-kernels=max-horizontal=2 | FileCheck %s --check-prefix=MAX
// RUN: nnc-opt %s --split-input-file -verify-diagnostics --nnc-gemm-to-blas --nnc-outline-kernels | FileCheck %s --check-prefix=BLAS

// Each op that touches memory becomes a kernel @f_k<i> taking only the
// arguments it uses; the arena views and constants are recomputed inside.
// The fill goes with the add that next writes its buffer. Kernels are named
// after what they compute and the NameLocs of their ops, and carry their
// bytes: exp reads %x (1024) and writes %a (1024); fill + add read %a and
// %y (2048) and write %b twice (2048); the unnamed mul reads %b twice (2048)
// and writes %out (1024), named by its file position. The body becomes the
// calls, in order. The arena keeps its mark (nnc.arena): a target knows
// it shares no bytes with the other arguments.
// CHECK-LABEL: func.func @f_k0
// CHECK-SAME: (%[[X:.*]]: memref<256xf32>, %[[AR:.*]]: memref<2048xi8> {nnc.arena})
// CHECK-SAME: nnc.bytes_read = 1024 : i64, nnc.bytes_written = 1024 : i64, nnc.kernel_detail = "exp1", nnc.kernel_name = "exp: exp1"
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.view %[[AR]][%[[C0]]][] : memref<2048xi8> to memref<256xf32>
// CHECK-NEXT: linalg.exp ins(%[[X]] : memref<256xf32>) outs(%[[A]] : memref<256xf32>)
// CHECK-NEXT: return
// CHECK-LABEL: func.func @f_k1
// CHECK-SAME: (%[[Y:.*]]: memref<256xf32>, %[[AR:.*]]: memref<2048xi8> {nnc.arena})
// CHECK-SAME: nnc.bytes_read = 2048 : i64, nnc.bytes_written = 2048 : i64, nnc.kernel_detail = "zero, add1", nnc.kernel_name = "fill+add: zero (+1)"
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.view %[[AR]][%[[C0]]][]
// CHECK-NEXT: %[[C1024:.*]] = arith.constant 1024 : index
// CHECK-NEXT: %[[B:.*]] = memref.view %[[AR]][%[[C1024]]][]
// CHECK-NEXT: %[[CST:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: linalg.fill ins(%[[CST]] : f32) outs(%[[B]] : memref<256xf32>)
// CHECK-NEXT: linalg.add ins(%[[A]], %[[Y]] : memref<256xf32>, memref<256xf32>) outs(%[[B]] : memref<256xf32>)
// CHECK-NEXT: return
// CHECK-LABEL: func.func @f_k2
// CHECK-SAME: (%[[OUT:.*]]: memref<256xf32>, %[[AR:.*]]: memref<2048xi8> {nnc.arena})
// CHECK-SAME: nnc.bytes_read = 2048 : i64, nnc.bytes_written = 1024 : i64, nnc.kernel_detail = "nnc-outline-kernels.mlir:[[@LINE+24]]", nnc.kernel_name = "mul: nnc-outline-kernels.mlir:[[@LINE+24]]"
// CHECK-NOT: nnc.library
// CHECK-NEXT: %[[C1024:.*]] = arith.constant 1024 : index
// CHECK-NEXT: %[[B:.*]] = memref.view %[[AR]][%[[C1024]]][]
// CHECK-NEXT: linalg.mul ins(%[[B]], %[[B]] : memref<256xf32>, memref<256xf32>) outs(%[[OUT]] : memref<256xf32>)
// CHECK-NEXT: return
// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[X:.*]]: memref<256xf32>, %[[Y:.*]]: memref<256xf32>, %[[OUT:.*]]: memref<256xf32>, %[[AR:.*]]: memref<2048xi8> {nnc.arena})
// CHECK-SAME: attributes {nnc.arena_size = 2048 : i64, nnc.kernels = 3 : i64}
// CHECK-NEXT: call @f_k0(%[[X]], %[[AR]]) : (memref<256xf32>, memref<2048xi8>) -> ()
// CHECK-NEXT: call @f_k1(%[[Y]], %[[AR]]) : (memref<256xf32>, memref<2048xi8>) -> ()
// CHECK-NEXT: call @f_k2(%[[OUT]], %[[AR]]) : (memref<256xf32>, memref<2048xi8>) -> ()
// CHECK-NEXT: return
// NOH-LABEL: func.func @f(
// NOH-SAME: nnc.kernels = 3 : i64
func.func @f(%x: memref<256xf32>, %y: memref<256xf32>, %out: memref<256xf32>, %arena: memref<2048xi8> {nnc.arena}) attributes {nnc.arena_size = 2048 : i64} {
  %c0 = arith.constant 0 : index
  %a = memref.view %arena[%c0][] : memref<2048xi8> to memref<256xf32>
  %c1024 = arith.constant 1024 : index
  %b = memref.view %arena[%c1024][] : memref<2048xi8> to memref<256xf32>
  %cst = arith.constant 0.0 : f32
  linalg.exp ins(%x : memref<256xf32>) outs(%a : memref<256xf32>) loc("exp1")
  linalg.fill ins(%cst : f32) outs(%b : memref<256xf32>) loc("zero")
  linalg.add ins(%a, %y : memref<256xf32>, memref<256xf32>) outs(%b : memref<256xf32>) loc("add1")
  linalg.mul ins(%b, %b : memref<256xf32>, memref<256xf32>) outs(%out : memref<256xf32>)
  return
}

// -----

// Kernel arguments follow the function's argument order, not the order the
// op uses them in; unused arguments are left out.
// CHECK-LABEL: func.func @args_k0
// CHECK-SAME: (%[[W:.*]]: memref<64xf32>, %[[X:.*]]: memref<64xf32>, %[[Z:.*]]: memref<64xf32>)
// CHECK-NEXT: linalg.add ins(%[[Z]], %[[X]] : memref<64xf32>, memref<64xf32>) outs(%[[W]] : memref<64xf32>)
// CHECK-LABEL: func.func @args(
// CHECK-SAME: %[[W:.*]]: memref<64xf32>, %[[X:.*]]: memref<64xf32>, %[[U:.*]]: memref<64xf32>, %[[Z:.*]]: memref<64xf32>)
// CHECK-NEXT: call @args_k0(%[[W]], %[[X]], %[[Z]])
func.func @args(%w: memref<64xf32>, %x: memref<64xf32>, %unused: memref<64xf32>, %z: memref<64xf32>) {
  linalg.add ins(%z, %x : memref<64xf32>, memref<64xf32>) outs(%w : memref<64xf32>)
  return
}

// -----

// A memref.copy initializer joins the generic that next writes its buffer;
// the generic's payload reads its output, so the output counts as read:
// 1024 (copy) + 1024 (%y) + 1024 (%b) read, 1024 + 1024 written.
// CHECK-LABEL: func.func @copy_init_k0
// CHECK-SAME: nnc.bytes_read = 3072 : i64, nnc.bytes_written = 2048 : i64, nnc.kernel_detail = "cp, acc", nnc.kernel_name = "copy+generic: cp (+1)"
// CHECK-NEXT: memref.copy
// CHECK-NEXT: linalg.generic
// CHECK-LABEL: func.func @copy_init(
// CHECK-SAME: nnc.kernels = 1 : i64
func.func @copy_init(%x: memref<256xf32>, %y: memref<256xf32>, %b: memref<256xf32>) {
  memref.copy %x, %b : memref<256xf32> to memref<256xf32> loc("cp")
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%y : memref<256xf32>) outs(%b : memref<256xf32>) {
  ^bb0(%i: f32, %o: f32):
    %s = arith.addf %i, %o : f32
    linalg.yield %s : f32
  } loc("acc")
  return
}

// -----

// The op right after the fill does not use its buffer: the fill is a
// kernel of its own (without horizontal: fill, exp, add); horizontally it
// goes with the independent exp, and the add that reads %a stays apart.
// CHECK-LABEL: func.func @init_not_next_k0
// CHECK-SAME: nnc.bytes_read = 1024 : i64, nnc.bytes_written = 2048 : i64, nnc.kernel_detail = "z, e", nnc.kernel_name = "fill+exp: z (+1)"
// CHECK-LABEL: func.func @init_not_next_k1
// CHECK-SAME: nnc.kernel_name = "add: a"
// CHECK-LABEL: func.func @init_not_next(
// CHECK-SAME: nnc.kernels = 2 : i64
// NOH-LABEL: func.func @init_not_next_k0
// NOH-SAME: (%{{.*}}: memref<256xf32>)
// NOH-SAME: nnc.bytes_read = 0 : i64, nnc.bytes_written = 1024 : i64, nnc.kernel_detail = "z", nnc.kernel_name = "fill: z"
// NOH-LABEL: func.func @init_not_next_k1
// NOH-SAME: nnc.kernel_name = "exp: e"
// NOH-LABEL: func.func @init_not_next_k2
// NOH-SAME: nnc.kernel_name = "add: a"
// NOH-LABEL: func.func @init_not_next(
// NOH-SAME: nnc.kernels = 3 : i64
func.func @init_not_next(%x: memref<256xf32>, %y: memref<256xf32>, %a: memref<256xf32>, %b: memref<256xf32>) {
  %cst = arith.constant 0.0 : f32
  linalg.fill ins(%cst : f32) outs(%b : memref<256xf32>) loc("z")
  linalg.exp ins(%x : memref<256xf32>) outs(%a : memref<256xf32>) loc("e")
  linalg.add ins(%a, %y : memref<256xf32>, memref<256xf32>) outs(%b : memref<256xf32>) loc("a")
  return
}

// -----

// Independent elementwise kernels (disjoint arena views, an in-place
// update of an argument) become one kernel of three loop nests; with
// max-horizontal=2, one of two and one of one; without horizontal, three.
// CHECK-LABEL: func.func @h_k0
// CHECK-SAME: nnc.bytes_read = 3072 : i64, nnc.bytes_written = 3072 : i64, nnc.kernel_detail = "e1, e2, n1", nnc.kernel_name = "exp*2+negf: e1 (+2)"
// CHECK: linalg.exp
// CHECK: linalg.exp
// CHECK: linalg.negf
// CHECK-LABEL: func.func @h(
// CHECK-SAME: nnc.kernels = 1 : i64
// CHECK-NEXT: call @h_k0(
// CHECK-NEXT: return
// MAX-LABEL: func.func @h_k0
// MAX-SAME: nnc.kernel_name = "exp*2: e1 (+1)"
// MAX: linalg.exp
// MAX: linalg.exp
// MAX-NOT: linalg.negf
// MAX-LABEL: func.func @h_k1
// MAX-SAME: nnc.kernel_name = "negf: n1"
// MAX: linalg.negf
// MAX-LABEL: func.func @h(
// MAX-SAME: nnc.kernels = 2 : i64
// NOH-LABEL: func.func @h_k0
// NOH-SAME: nnc.kernel_name = "exp: e1"
// NOH-LABEL: func.func @h_k1
// NOH-SAME: nnc.kernel_name = "exp: e2"
// NOH-LABEL: func.func @h_k2
// NOH-SAME: nnc.kernel_name = "negf: n1"
// NOH-LABEL: func.func @h(
// NOH-SAME: nnc.kernels = 3 : i64
func.func @h(%x: memref<256xf32>, %y: memref<256xf32>, %out: memref<256xf32>, %arena: memref<2048xi8> {nnc.arena}) {
  %c0 = arith.constant 0 : index
  %a = memref.view %arena[%c0][] : memref<2048xi8> to memref<256xf32>
  %c1024 = arith.constant 1024 : index
  %b = memref.view %arena[%c1024][] : memref<2048xi8> to memref<256xf32>
  linalg.exp ins(%x : memref<256xf32>) outs(%a : memref<256xf32>) loc("e1")
  linalg.exp ins(%b : memref<256xf32>) outs(%out : memref<256xf32>) loc("e2")
  linalg.negf ins(%y : memref<256xf32>) outs(%y : memref<256xf32>) loc("n1")
  return
}

// -----

// Arena views that overlap ([0, 1024) written, [512, 1536) read after):
// the second depends on the first. Two kernels.
// CHECK-LABEL: func.func @overlapping_views_k0
// CHECK-SAME: nnc.kernel_name = "exp: e1"
// CHECK-LABEL: func.func @overlapping_views_k1
// CHECK-SAME: nnc.kernel_name = "exp: e2"
// CHECK-LABEL: func.func @overlapping_views(
// CHECK-SAME: nnc.kernels = 2 : i64
func.func @overlapping_views(%x: memref<256xf32>, %out: memref<256xf32>, %arena: memref<2048xi8> {nnc.arena}) {
  %c0 = arith.constant 0 : index
  %a = memref.view %arena[%c0][] : memref<2048xi8> to memref<256xf32>
  %c512 = arith.constant 512 : index
  %b = memref.view %arena[%c512][] : memref<2048xi8> to memref<256xf32>
  linalg.exp ins(%x : memref<256xf32>) outs(%a : memref<256xf32>) loc("e1")
  linalg.exp ins(%b : memref<256xf32>) outs(%out : memref<256xf32>) loc("e2")
  return
}

// -----

// The second reads the argument %t the first writes: two kernels.
// CHECK-LABEL: func.func @read_after_write_k0
// CHECK-SAME: nnc.kernel_name = "exp: e1"
// CHECK-LABEL: func.func @read_after_write_k1
// CHECK-SAME: nnc.kernel_name = "exp: e2"
// CHECK-LABEL: func.func @read_after_write(
// CHECK-SAME: nnc.kernels = 2 : i64
func.func @read_after_write(%x: memref<256xf32>, %t: memref<256xf32>, %out: memref<256xf32>) {
  linalg.exp ins(%x : memref<256xf32>) outs(%t : memref<256xf32>) loc("e1")
  linalg.exp ins(%t : memref<256xf32>) outs(%out : memref<256xf32>) loc("e2")
  return
}

// -----

// The second writes %x, which the first reads: two kernels.
// CHECK-LABEL: func.func @write_after_read_k0
// CHECK-SAME: nnc.kernel_name = "exp: e1"
// CHECK-LABEL: func.func @write_after_read_k1
// CHECK-SAME: nnc.kernel_name = "negf: n1"
// CHECK-LABEL: func.func @write_after_read(
// CHECK-SAME: nnc.kernels = 2 : i64
func.func @write_after_read(%x: memref<256xf32>, %y: memref<256xf32>, %t: memref<256xf32>) {
  linalg.exp ins(%x : memref<256xf32>) outs(%t : memref<256xf32>) loc("e1")
  linalg.negf ins(%y : memref<256xf32>) outs(%x : memref<256xf32>) loc("n1")
  return
}

// -----

// An op that passes a value other than a buffer (a loaded scalar) to
// another stays in one kernel with it, and a kernel that is not one
// all-parallel linalg op is not grouped horizontally.
// CHECK-LABEL: func.func @scalar_k0
// CHECK-SAME: nnc.bytes_read = 16 : i64, nnc.bytes_written = 1024 : i64
// CHECK-SAME: nnc.kernel_name = "load+fill: nnc-outline-kernels.mlir:[[@LINE+9]] (+1)"
// CHECK: %[[V:.*]] = memref.load
// CHECK: linalg.fill ins(%[[V]] : f32)
// CHECK-LABEL: func.func @scalar_k1
// CHECK-SAME: nnc.kernel_name = "exp: e1"
// CHECK-LABEL: func.func @scalar(
// CHECK-SAME: nnc.kernels = 2 : i64
func.func @scalar(%s: memref<4xf32>, %out: memref<256xf32>, %x: memref<256xf32>, %y: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %v = memref.load %s[%c1] : memref<4xf32>
  linalg.fill ins(%v : f32) outs(%out : memref<256xf32>)
  linalg.exp ins(%x : memref<256xf32>) outs(%y : memref<256xf32>) loc("e1")
  return
}

// -----

// GEMMs. As linalg ops: the fill joins the matmul, which reads A, B and C
// (20480 + 30720 + 24576 = 75776 bytes) and writes C (24576), fill included
// 49152. After --nnc-gemm-to-blas: the zero fill is gone (beta = 0) and the
// call reads A and B (51200) and writes C (24576), a library kernel; the
// one-fill stays and joins the call that accumulates (reads C too: 75776,
// writes 49152), still a library kernel.
// CHECK-LABEL: func.func @gemm_k0
// CHECK-SAME: nnc.bytes_read = 75776 : i64, nnc.bytes_written = 49152 : i64, nnc.kernel_detail = "zero, mm1", nnc.kernel_name = "fill+matmul: zero (+1)"}
// CHECK-NOT: nnc.library
// CHECK-LABEL: func.func @gemm_k1
// CHECK-SAME: nnc.kernel_name = "fill+matmul: one (+1)"}
// BLAS-LABEL: func.func @gemm_k0
// BLAS-SAME: (%{{.*}}: memref<64x80xf32>, %{{.*}}: memref<80x96xf32>, %{{.*}}: memref<64x96xf32>)
// BLAS-SAME: nnc.bytes_read = 51200 : i64, nnc.bytes_written = 24576 : i64, nnc.kernel_detail = "mm1", nnc.kernel_name = "cblas_sgemm: mm1", nnc.library}
// BLAS-NOT: linalg.fill
// BLAS: call @cblas_sgemm
// BLAS-LABEL: func.func @gemm_k1
// BLAS-SAME: nnc.bytes_read = 75776 : i64, nnc.bytes_written = 49152 : i64, nnc.kernel_detail = "one, mm2", nnc.kernel_name = "fill+cblas_sgemm: one (+1)", nnc.library}
// BLAS: linalg.fill
// BLAS: call @cblas_sgemm
// BLAS-LABEL: func.func @gemm(
// BLAS-SAME: nnc.kernels = 2 : i64
func.func @gemm(%a: memref<64x80xf32>, %b: memref<80x96xf32>, %c: memref<64x96xf32>, %d: memref<64x96xf32>) {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<64x96xf32>) loc("zero")
  linalg.matmul ins(%a, %b : memref<64x80xf32>, memref<80x96xf32>) outs(%c : memref<64x96xf32>) loc("mm1")
  linalg.fill ins(%one : f32) outs(%d : memref<64x96xf32>) loc("one")
  linalg.matmul ins(%a, %b : memref<64x80xf32>, memref<80x96xf32>) outs(%d : memref<64x96xf32>) loc("mm2")
  return
}

// -----

// A batched library GEMM (a loop of calls) is one library kernel, its
// bytes from nnc.gemm times the 3 batches: reads 3 * (5120 + 7680) * 4,
// writes 3 * 6144 * 4 (beta = 0 after the zero fill).
// BLAS-LABEL: func.func @bgemm_k0
// BLAS-SAME: nnc.bytes_read = 153600 : i64, nnc.bytes_written = 73728 : i64, nnc.kernel_detail = "bmm", nnc.kernel_name = "cblas_sgemm: bmm", nnc.library}
// BLAS: scf.for
// BLAS: func.call @cblas_sgemm
// BLAS-LABEL: func.func @bgemm(
// BLAS-SAME: nnc.kernels = 1 : i64
func.func @bgemm(%a: memref<3x64x80xf32>, %b: memref<3x80x96xf32>, %c: memref<3x64x96xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<3x64x96xf32>) loc("zero")
  linalg.batch_matmul ins(%a, %b : memref<3x64x80xf32>, memref<3x80x96xf32>) outs(%c : memref<3x64x96xf32>) loc("bmm")
  return
}

// -----

// Private functions and declarations are left alone.
// CHECK-LABEL: func.func private @decl(memref<4xf32>)
// CHECK-LABEL: func.func private @helper
// CHECK-NEXT: linalg.exp
// CHECK-NOT: func.func @helper_k0
// CHECK-NOT: nnc.kernels
func.func private @decl(memref<4xf32>)
func.func private @helper(%x: memref<4xf32>, %y: memref<4xf32>) {
  linalg.exp ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
  return
}

// -----

// A public function already named like a kernel of another (@main_k0 next
// to @main): kernels must get names of their own, not redefine a symbol.
// CHECK: func.func @[[EXP:[a-zA-Z0-9_]+]]({{.*}}nnc.kernel_name = "exp
// CHECK-NEXT: linalg.exp
// CHECK-LABEL: func.func @main(
// CHECK-NEXT: call @[[EXP]](
func.func @main(%x: memref<4xf32>, %y: memref<4xf32>) {
  linalg.exp ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) loc("e")
  return
}
func.func @main_k0(%x: memref<4xf32>, %y: memref<4xf32>) {
  linalg.negf ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
  return
}

// -----

// expected-error @below {{cannot outline kernels from a function that returns values (results must be out-parameters)}}
func.func @returns(%x: memref<4xf32>) -> memref<4xf32> {
  return %x : memref<4xf32>
}

// -----

// A loop of work (a convolution image by image) is one kernel named after
// the kinds of its ops. Its traffic is each buffer it touches, whole and
// once: the input read (16384 bytes), the weight read (4608), the output
// written (25600) and read (the GEMM accumulates: no zero fill before it);
// the per-image tile (nnc.loop_local) stays in cache and does not count.
// BLAS-LABEL: func.func @conv_loop_k0
// BLAS-SAME: nnc.bytes_read = 46592 : i64, nnc.bytes_written = 25600 : i64
// BLAS-SAME: nnc.kernel_name = "for(generic+cblas_sgemm): conv"
// BLAS-NOT: nnc.library
// BLAS: scf.for
// BLAS: linalg.generic
// BLAS: call @cblas_sgemm
func.func @conv_loop(%x: memref<4x16x64xf32>, %w: memref<16x72xf32>, %out: memref<4x16x100xf32>, %arena: memref<28800xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %tile = memref.view %arena[%c0][] {nnc.loop_local} : memref<28800xi8> to memref<72x100xf32>
  scf.for %n = %c0 to %c4 step %c1 {
    %xn = memref.subview %x[%n, 0, 0] [1, 16, 64] [1, 1, 1] : memref<4x16x64xf32> to memref<16x64xf32, strided<[64, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 mod 16, d1 mod 64)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
        ins(%xn : memref<16x64xf32, strided<[64, 1], offset: ?>>) outs(%tile : memref<72x100xf32>) {
    ^bb0(%in: f32, %o: f32):
      linalg.yield %in : f32
    }
    %block = memref.subview %out[%n, 0, 0] [1, 16, 100] [1, 1, 1] : memref<4x16x100xf32> to memref<16x100xf32, strided<[100, 1], offset: ?>>
    linalg.matmul ins(%w, %tile : memref<16x72xf32>, memref<72x100xf32>) outs(%block : memref<16x100xf32, strided<[100, 1], offset: ?>>)
  } loc("conv")
  return
}

// -----

// A loop nest whose body loads from a buffer by address (a gather) reads
// more than its operands' elements: it is not grouped horizontally with
// the loop nest writing that buffer.
// CHECK-LABEL: func.func @gather_k0
// CHECK: math.log
// CHECK-NOT: memref.load
// CHECK-LABEL: func.func @gather_k1
// CHECK: memref.load
// CHECK-LABEL: func.func @gather(
// CHECK-SAME: nnc.kernels = 2 : i64
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0) -> (d0)>
func.func @gather(%x: memref<6x5xf32>, %labels: memref<6xindex>, %logp: memref<6x5xf32>, %picked: memref<6xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<6x5xf32>) outs(%logp : memref<6x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %l = math.log %a : f32
    linalg.yield %l : f32
  }
  linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel"]}
      ins(%labels : memref<6xindex>) outs(%picked : memref<6xf32>) {
  ^bb0(%c: index, %o: f32):
    %i = linalg.index 0 : index
    %v = memref.load %logp[%i, %c] : memref<6x5xf32>
    linalg.yield %v : f32
  }
  return
}

// -----

// An op that uses a value from an earlier kernel (%t, an allocation that
// memory planning did not take) joins that kernel and every kernel since,
// which keep their order: the zeros written to %out stay before the copy into
// its middle (found by nnc-graph-fuzz: a Pad returned beside an ArgMin,
// compiled without memory planning, came out all zeros).
// CHECK-LABEL: func.func @joined_in_order_k0
// CHECK: memref.alloc
// CHECK: linalg.fill {{.*}} outs(%[[T:.*]] : memref<2xf32>)
// CHECK: linalg.map outs(%{{.*}} : memref<4xf32>)
// CHECK: memref.copy
// CHECK: linalg.copy ins(%[[T]]
// CHECK: memref.dealloc
// CHECK-LABEL: func.func @joined_in_order(
// CHECK-NEXT: call @joined_in_order_k0
// CHECK-NEXT: return
func.func @joined_in_order(%b: memref<2xf32>, %out: memref<4xf32>,
                           %r: memref<2xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<2xf32>
  linalg.fill ins(%one : f32) outs(%t : memref<2xf32>)
  linalg.map outs(%out : memref<4xf32>) (%init: f32) {
    linalg.yield %zero : f32
  }
  %mid = memref.subview %out[1] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
  memref.copy %b, %mid : memref<2xf32> to memref<2xf32, strided<[1], offset: 1>>
  linalg.copy ins(%t : memref<2xf32>) outs(%r : memref<2xf32>)
  memref.dealloc %t : memref<2xf32>
  return
}

// -----

// An op a target marked as a GEMM epilogue (nnc.epilogue: the CUDA target's
// bias add, in place on the product) joins the product's kernel, which the
// target's library runs with it; without the mark it is a kernel of its
// own.
// CHECK-LABEL: func.func @epilogue_k0
// CHECK: linalg.fill
// CHECK: linalg.matmul
// CHECK: linalg.generic {{.*}}nnc.epilogue = "bias"
// CHECK-LABEL: func.func @epilogue_k1
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @epilogue_k2
// CHECK: linalg.generic
// CHECK-LABEL: func.func @epilogue(
// CHECK-NEXT: call @epilogue_k0
// CHECK-NEXT: call @epilogue_k1
// CHECK-NEXT: call @epilogue_k2
// CHECK-NEXT: return
func.func @epilogue(%x: memref<4x8xf32>, %w: memref<8x4xf32>, %b: memref<4xf32>, %y: memref<4x4xf32>, %z: memref<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<4x4xf32>)
  linalg.matmul ins(%x, %w : memref<4x8xf32>, memref<8x4xf32>) outs(%y : memref<4x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%b, %y : memref<4xf32>, memref<4x4xf32>) outs(%y : memref<4x4xf32>) attrs = {nnc.epilogue = "bias"} {
  ^bb0(%bv: f32, %cv: f32, %o: f32):
    %s = arith.addf %bv, %cv : f32
    linalg.yield %s : f32
  }
  linalg.matmul ins(%x, %w : memref<4x8xf32>, memref<8x4xf32>) outs(%z : memref<4x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%b, %z : memref<4xf32>, memref<4x4xf32>) outs(%z : memref<4x4xf32>) {
  ^bb0(%bv: f32, %cv: f32, %o: f32):
    %s = arith.addf %bv, %cv : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Ops a target marked to join the kernel before them (nnc.join_kernel: the
// CUDA target's row groups) stay in it, however many; the same ops unmarked
// are a kernel each (the reductions end kernels).
// CHECK-LABEL: func.func @join_k0
// CHECK: linalg.reduce
// CHECK: linalg.generic
// CHECK: linalg.reduce
// CHECK-NOT: func.func
// CHECK-LABEL: func.func @join_k1
// CHECK: linalg.generic
// CHECK-LABEL: func.func @join_k2
// CHECK: linalg.reduce
// CHECK-LABEL: func.func @join(
// CHECK-NEXT: call @join_k0
// CHECK-NEXT: call @join_k1
// CHECK-NEXT: call @join_k2
// CHECK-NEXT: return
func.func @join(%x: memref<4x8xf32>, %m: memref<4xf32>, %e: memref<4x8xf32>, %s: memref<4xf32>, %t: memref<4xf32>) {
  linalg.reduce ins(%x : memref<4x8xf32>) outs(%m : memref<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.maximumf %in, %acc : f32
      linalg.yield %a : f32
    }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %m : memref<4x8xf32>, memref<4xf32>) outs(%e : memref<4x8xf32>) attrs = {nnc.join_kernel} {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  }
  linalg.reduce ins(%e : memref<4x8xf32>) outs(%s : memref<4xf32>) dimensions = [1] {nnc.join_kernel}
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %s : memref<4x8xf32>, memref<4xf32>) outs(%e : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  }
  linalg.reduce ins(%e : memref<4x8xf32>) outs(%t : memref<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return
}
