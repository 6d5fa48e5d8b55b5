//===- Launch.h - nnc-run train --nproc N: local ranks ----------*- C++ -*-===//
//
// The local launcher of data-parallel training (docs/Distributed.md).
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TOOLS_NNC_RUN_LAUNCH_H
#define NNC_TOOLS_NNC_RUN_LAUNCH_H

#include <string>
#include <vector>

namespace nnc::tools {

/// Runs `arguments` (argv, the program first) as `nproc` processes with
/// torchrun's variables for ranks 0..nproc-1 of one world whose store rank
/// 0 serves at 127.0.0.1:`masterPort` (0: a free port), and waits for all.
/// Returns 0 when every rank succeeded, else the first failing rank's exit
/// status (128 + the signal for one killed), after stopping the others
/// `graceSeconds` after that failure if they have not ended by then.
int launchLocalRanks(int nproc, int masterPort, double graceSeconds,
                     const std::vector<std::string> &arguments);

} // namespace nnc::tools

#endif // NNC_TOOLS_NNC_RUN_LAUNCH_H
