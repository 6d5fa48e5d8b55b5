//===- Tuning.h - the tuning subcommand of nnc-run --------------*- C++ -*-===//
//
// `nnc-run tuning export|import FILE`: a tuning database merged out to a
// file or in from one (Tuning.cpp); argv[0] is the subcommand's name.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TOOLS_NNC_RUN_TUNING_H
#define NNC_TOOLS_NNC_RUN_TUNING_H

namespace nnc::tools {

int runTuning(int argc, char **argv);

} // namespace nnc::tools

#endif // NNC_TOOLS_NNC_RUN_TUNING_H
