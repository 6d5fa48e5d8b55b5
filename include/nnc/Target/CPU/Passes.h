//===- Passes.h - passes of the CPU target ----------------------*- C++ -*-===//
//
// Entry points of the CPU target's passes declared in Passes.td beside this
// file.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TARGET_CPU_PASSES_H
#define NNC_TARGET_CPU_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir {
class ModuleOp;
namespace arith {
class ArithDialect;
} // namespace arith
namespace func {
class FuncDialect;
class FuncOp;
} // namespace func
namespace linalg {
class LinalgDialect;
} // namespace linalg
namespace math {
class MathDialect;
} // namespace math
namespace LLVM {
class LLVMDialect;
} // namespace LLVM
namespace memref {
class MemRefDialect;
} // namespace memref
namespace scf {
class SCFDialect;
} // namespace scf
namespace vector {
class VectorDialect;
} // namespace vector
} // namespace mlir

namespace nnc::cpu {

#define GEN_PASS_DECL
#include "nnc/Target/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "nnc/Target/CPU/Passes.h.inc"

} // namespace nnc::cpu

#endif // NNC_TARGET_CPU_PASSES_H
