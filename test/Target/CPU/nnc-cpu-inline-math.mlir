// RUN: nnc-opt %s --nnc-cpu-inline-math | FileCheck %s

// exp, log, tanh, erf and their siblings become arithmetic with fma as
// LLVM's intrinsic (no libm call, so their loops vectorize); sin stays.
// CHECK-LABEL: func @f32
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK-NOT: math.fma
// CHECK: llvm.intr.fma
// CHECK: math.sin
func.func @f32(%x: f32) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32) {
  %0 = math.exp %x : f32
  %1 = math.log %x : f32
  %2 = math.tanh %x : f32
  %3 = math.erf %x : f32
  %4 = math.expm1 %x : f32
  %5 = math.log1p %x : f32
  %6 = math.log2 %x : f32
  %7 = math.fma %x, %x, %x : f32
  %8 = math.sin %x : f32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8
      : f32, f32, f32, f32, f32, f32, f32, f32, f32
}

// exp of x below ln 2^-126 runs as exp(x + 16) * e^-16, so subnormal
// results do not flush to zero; log of x below 2^-126 as
// log(x * 2^24) - 24 ln 2.
// CHECK-LABEL: func @subnormal_ranges
// CHECK-DAG: %[[SHIFT:.*]] = arith.constant 16.6355324
// CHECK-DAG: %[[TWO24:.*]] = arith.constant 0x4B800000
// CHECK-DAG: %[[LOGLIM:.*]] = arith.constant 1.17549435E-38
// CHECK-DAG: %[[EM16:.*]] = arith.constant 1.12535176E-7
// CHECK-DAG: %[[SIXTEEN:.*]] = arith.constant 1.600000e+01
// CHECK-DAG: %[[EXPLIM:.*]] = arith.constant -87.3365478
// CHECK: %[[SMALL:.*]] = arith.cmpf olt, %arg0, %[[EXPLIM]]
// CHECK: %[[MOVED:.*]] = arith.addf %arg0, %[[SIXTEEN]]
// CHECK: arith.select %[[SMALL]], %[[MOVED]], %arg0
// CHECK: %[[BACK:.*]] = arith.mulf %[[E:.*]], %[[EM16]]
// CHECK: arith.select %[[SMALL]], %[[BACK]], %[[E]]
// CHECK: %[[TINY:.*]] = arith.cmpf olt, %arg0, %[[LOGLIM]]
// CHECK: arith.mulf %arg0, %[[TWO24]]
// CHECK: %[[LBACK:.*]] = arith.subf %[[L:.*]], %[[SHIFT]]
// CHECK: arith.select %[[TINY]], %[[LBACK]], %[[L]]
func.func @subnormal_ranges(%x: f32) -> (f32, f32) {
  %0 = math.exp %x : f32
  %1 = math.log %x : f32
  return %0, %1 : f32, f32
}

// f16 computes in f32 and rounds once; f64 keeps libm.
// CHECK-LABEL: func @other_types
// CHECK: arith.extf %arg0 : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: math.exp %arg1 : f64
func.func @other_types(%h: f16, %d: f64) -> (f16, f64) {
  %0 = math.tanh %h : f16
  %1 = math.exp %d : f64
  return %0, %1 : f16, f64
}

// Functions with an exact LLVM intrinsic become it, f32 and f64 alike.
// CHECK-LABEL: func @intrinsics
// CHECK: llvm.intr.sqrt(%arg0) : (f32) -> f32
// CHECK: llvm.intr.sqrt(%arg1) : (f64) -> f64
// CHECK: llvm.intr.floor(%arg0) : (f32) -> f32
// CHECK: llvm.intr.ceil(%arg1) : (f64) -> f64
// CHECK: llvm.intr.trunc(%arg0) : (f32) -> f32
// CHECK: llvm.intr.round(%arg0) : (f32) -> f32
// CHECK: llvm.intr.roundeven(%arg0) : (f32) -> f32
// CHECK: llvm.intr.fabs(%arg1) : (f64) -> f64
// CHECK: llvm.intr.copysign(%arg0, %arg0) : (f32, f32) -> f32
// CHECK: llvm.intr.fma(%arg1, %arg1, %arg1) : (f64, f64, f64) -> f64
// CHECK-NOT: math.
func.func @intrinsics(%x: f32, %d: f64)
    -> (f32, f64, f32, f64, f32, f32, f32, f64, f32, f64) {
  %0 = math.sqrt %x : f32
  %1 = math.sqrt %d : f64
  %2 = math.floor %x : f32
  %3 = math.ceil %d : f64
  %4 = math.trunc %x : f32
  %5 = math.round %x : f32
  %6 = math.roundeven %x : f32
  %7 = math.absf %d : f64
  %8 = math.copysign %x, %x : f32
  %9 = math.fma %d, %d, %d : f64
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
      : f32, f64, f32, f64, f32, f32, f32, f64, f32, f64
}
