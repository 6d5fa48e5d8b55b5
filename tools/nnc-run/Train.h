//===- Train.h - the train and grad subcommands of nnc-run ------*- C++ -*-===//
//
// `nnc-run train MODEL ...` and `nnc-run grad MODEL ...`; argv[0] is the
// subcommand's name.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TOOLS_NNC_RUN_TRAIN_H
#define NNC_TOOLS_NNC_RUN_TRAIN_H

#include "nnc-c/compiler.h"

#include <string>

namespace nnc::tools {

int runTrain(int argc, char **argv);

/// --autotune=off|cached|on|require, --tuning-db FILE and --tuning-budget
/// SECONDS (each null when absent) into `c`, which borrows `db`; the error
/// for a malformed value (exit status 2), empty when all are well formed.
std::string applyTuningOptions(const std::string *mode, const std::string *db,
                               const std::string *budget,
                               nnc_compile_options_t &c);
/// --amp bf16|f16|off, --amp-low-ops OPS and --amp-f32-ops OPS (each null
/// when absent) into `c`, which borrows the lists; the error for a
/// malformed value (exit status 2), empty when all are well formed.
std::string applyPrecisionOptions(const std::string *amp,
                                  const std::string *lowOps,
                                  const std::string *f32Ops,
                                  nnc_compile_options_t &c);
/// Prints what mixed precision did in the compile of `executable`
/// (--report); nothing without --amp.
void printMixedPrecisionReport(const nnc_executable_t *executable);
/// Prints the kernels the autotuner had a choice for in `executable`, with
/// the candidate chosen, its time and the default's (--report).
void printTuningReport(const nnc_executable_t *executable);
int runGrad(int argc, char **argv);

} // namespace nnc::tools

#endif // NNC_TOOLS_NNC_RUN_TRAIN_H
