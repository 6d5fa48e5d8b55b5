// RUN: nnc-opt %s --split-input-file -verify-diagnostics --nnc-lower-checks | FileCheck %s
// RUN: nnc-opt %s --split-input-file -verify-diagnostics --nnc-lower-checks=abort=1 | FileCheck %s --check-prefix=ABORT

// Two checks in a gather's body: a checks buffer memref<2x4xi64> becomes
// the last argument and the function lists what each check is. Each check
// is a range compare, a record (value, lower, upper, then the flag) in its
// row when out of range, and a select of 0 in place of a value out of
// range.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[D:.*]]: memref<10x4xf32>, %[[I:.*]]: memref<3xi64>, %[[O:.*]]: memref<3x4xf32>, %[[C:.*]]: memref<2x4xi64> {nnc.checks})
// CHECK-SAME: nnc.checks = ["gather 'g' index into axis 0 of f32[10x4]", "gather 'g' index into axis 1 of f32[10x4]"]
// CHECK: linalg.generic
// CHECK: %[[X:.*]] = arith.index_cast
// CHECK: %[[GE:.*]] = arith.cmpi sge, %[[X]], %[[LO:.*]] : index
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[X]], %[[HI:.*]] : index
// CHECK: %[[OK:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK: %[[BAD:.*]] = arith.xori %[[OK]], %{{.*}} : i1
// CHECK: scf.if %[[BAD]] {
// CHECK: %[[ROW:.*]] = arith.constant 0 : index
// CHECK: %[[V:.*]] = arith.index_cast %[[X]] : index to i64
// CHECK: %[[F1:.*]] = arith.constant 1 : index
// CHECK: memref.atomic_rmw assign %[[V]], %[[C]][%[[ROW]], %[[F1]]] : (i64, memref<2x4xi64>) -> i64
// CHECK: memref.atomic_rmw assign %{{.*}}, %[[C]][%[[ROW]], %{{.*}}]
// CHECK: memref.atomic_rmw assign %{{.*}}, %[[C]][%[[ROW]], %{{.*}}]
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: %[[F0:.*]] = arith.constant 0 : index
// CHECK: memref.atomic_rmw assign %[[ONE]], %[[C]][%[[ROW]], %[[F0]]]
// CHECK: }
// CHECK: arith.select %[[OK]], %[[X]], %{{.*}} : index
// CHECK: scf.if
// CHECK: arith.constant 1 : index
// CHECK: memref.atomic_rmw assign
// CHECK-NOT: nnc.check_index

// Aborting: the signature stays, each check asserts.
// ABORT-LABEL: func.func @gather
// ABORT-SAME: (%{{.*}}: memref<10x4xf32>, %{{.*}}: memref<3xi64>, %{{.*}}: memref<3x4xf32>) {
// ABORT: %[[OK:.*]] = arith.andi
// ABORT: cf.assert %[[OK]], "gather 'g' index into axis 0 of f32[10x4] out of range"
// ABORT: arith.select %[[OK]]
// ABORT: cf.assert %{{.*}}, "gather 'g' index into axis 1 of f32[10x4] out of range"
// ABORT-NOT: nnc.check_index
func.func @gather(%d: memref<10x4xf32>, %i: memref<3xi64>, %o: memref<3x4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  %m10 = arith.constant -10 : index
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%i : memref<3xi64>) outs(%o : memref<3x4xf32>) {
  ^bb0(%x: i64, %out: f32):
    %xi = arith.index_cast %x : i64 to index
    %r, %ok = nnc.check_index %xi in [%m10, %c10) "gather 'g' index into axis 0 of f32[10x4]"
    %j = linalg.index 1 : index
    %c, %ok2 = nnc.check_index %j in [%c0, %c4) "gather 'g' index into axis 1 of f32[10x4]"
    %v = memref.load %d[%r, %c] : memref<10x4xf32>
    linalg.yield %v : f32
  }
  return
}

// -----

// Without checks the function is left as it is.
// CHECK-LABEL: func.func @none
// CHECK-SAME: (%{{.*}}: memref<4xf32>) {
// CHECK-NOT: nnc.checks
func.func @none(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @below {{the checks of @twice are lowered already}}
func.func @twice(%i: index) -> index attributes {nnc.checks = ["x"]} {
  %c0 = arith.constant 0 : index
  %r, %ok = nnc.check_index %i in [%c0, %c0) "x"
  return %r : index
}
