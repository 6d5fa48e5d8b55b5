//===- Train.h - the train and grad subcommands of nnc-run ------*- C++ -*-===//
//
// `nnc-run train MODEL ...` and `nnc-run grad MODEL ...`; argv[0] is the
// subcommand's name.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TOOLS_NNC_RUN_TRAIN_H
#define NNC_TOOLS_NNC_RUN_TRAIN_H

namespace nnc::tools {

int runTrain(int argc, char **argv);
int runGrad(int argc, char **argv);

} // namespace nnc::tools

#endif // NNC_TOOLS_NNC_RUN_TRAIN_H
