// RUN: nnc-opt %s --split-input-file --nnc-cpu-bf16-as-bits | FileCheck %s

// bf16 values that only move become i16: loads, stores, a phi (block
// argument) fed by a load and a constant, a select, vector moves and a
// dense constant; the bit casts between i16 and bf16 fold away.
// CHECK-LABEL: llvm.func @moves
// CHECK-NOT: bf16
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i16) : i16
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(16256 : i16) : i16
// CHECK: %[[A:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i16
// CHECK: llvm.cond_br %{{.*}}, ^bb1(%[[A]] : i16), ^bb1(%[[ZERO]] : i16)
// CHECK: ^bb1(%[[PHI:.*]]: i16):
// CHECK: %[[SEL:.*]] = llvm.select %{{.*}}, %[[PHI]], %[[ONE]] : i1, i16
// CHECK: llvm.store %[[SEL]], %{{.*}} : i16, !llvm.ptr
// CHECK: %[[BITS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i16
// CHECK: llvm.store %[[BITS]], %{{.*}} : i16, !llvm.ptr
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i16
// CHECK: llvm.mlir.constant(dense<[0, 16256, -16384, 32610]> : vector<4xi16>) : vector<4xi16>
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<4xi16>
// CHECK: llvm.extractelement %{{.*}}[%{{.*}} : i64] : vector<4xi16>
// CHECK-NOT: bf16
llvm.func @moves(%p: !llvm.ptr, %q: !llvm.ptr, %c: i1, %i: i64) {
  %zero = llvm.mlir.constant(0.0 : bf16) : bf16
  %one = llvm.mlir.constant(1.0 : bf16) : bf16
  %a = llvm.load %p : !llvm.ptr -> bf16
  llvm.cond_br %c, ^bb1(%a : bf16), ^bb1(%zero : bf16)
^bb1(%v: bf16):
  %s = llvm.select %c, %v, %one : i1, bf16
  llvm.store %s, %q : bf16, !llvm.ptr
  %bits = llvm.load %p : !llvm.ptr -> i16
  %b = llvm.bitcast %bits : i16 to bf16
  llvm.store %b, %q : bf16, !llvm.ptr
  %g = llvm.getelementptr %p[%i] : (!llvm.ptr, i64) -> !llvm.ptr, bf16
  %dense = llvm.mlir.constant(dense<[0.0, 1.0, -2.0, 3.0e38]> : vector<4xbf16>) : vector<4xbf16>
  llvm.store %dense, %g : vector<4xbf16>, !llvm.ptr
  %vec = llvm.load %g : !llvm.ptr -> vector<4xbf16>
  %e = llvm.extractelement %vec[%i : i64] : vector<4xbf16>
  llvm.store %e, %q : bf16, !llvm.ptr
  llvm.return
}

// -----

// Arithmetic on bf16 (here an extension to f32) leaves the function as it
// is: its values do more than move.
// CHECK-LABEL: llvm.func @arithmetic
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> bf16
// CHECK: llvm.fpext %{{.*}} : bf16 to f32
llvm.func @arithmetic(%p: !llvm.ptr) -> f32 {
  %a = llvm.load %p : !llvm.ptr -> bf16
  %f = llvm.fpext %a : bf16 to f32
  llvm.return %f : f32
}

// -----

// So does a bf16 argument.
// CHECK-LABEL: llvm.func @signature(%{{.*}}: bf16, %{{.*}}: !llvm.ptr)
// CHECK: llvm.store %{{.*}}, %{{.*}} : bf16, !llvm.ptr
llvm.func @signature(%x: bf16, %q: !llvm.ptr) {
  llvm.store %x, %q : bf16, !llvm.ptr
  llvm.return
}

// -----

// So does a bf16 moved out of an aggregate, whose type keeps its bf16.
// CHECK-LABEL: llvm.func @aggregate
// CHECK: llvm.extractvalue %{{.*}}[0] : !llvm.struct<(bf16, i32)>
// CHECK: llvm.store %{{.*}}, %{{.*}} : bf16, !llvm.ptr
llvm.func @aggregate(%p: !llvm.ptr, %q: !llvm.ptr) {
  %s = llvm.load %p : !llvm.ptr -> !llvm.struct<(bf16, i32)>
  %x = llvm.extractvalue %s[0] : !llvm.struct<(bf16, i32)>
  llvm.store %x, %q : bf16, !llvm.ptr
  llvm.return
}
