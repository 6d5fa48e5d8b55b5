//===- InitAll.h - register everything nnc uses -----------------*- C++ -*-===//
//
// The one place that lists the dialects and passes of nnc. nnc-opt, nnc-run
// and the C API register through these functions and nothing else.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_INITALL_H
#define NNC_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace nnc {

/// Adds the nnc dialect and the upstream dialects nnc IR uses.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers the nnc passes and the upstream passes nnc pipelines use.
/// Every pass, the targets and the registered pipelines; idempotent.
void registerAllPasses();

} // namespace nnc

#endif // NNC_INITALL_H
