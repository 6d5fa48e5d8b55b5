//===- CollectivesInternal.h - what the communicators share -----*- C++ -*-===//
//
// Helpers of Collectives.cpp (Gloo) that NcclCommunicator.cpp uses too; not
// part of the runtime's interface.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_LIB_COLLECTIVESINTERNAL_H
#define NNC_RUNTIME_LIB_COLLECTIVESINTERNAL_H

#include "nnc/runtime/Collectives.h"

#include <cstdint>
#include <string>

namespace nnc::runtime::collectives {

/// "1.5 s", "300 s".
std::string secondsText(int64_t ms);

/// InvalidArgument for a rank outside the world or a timeout that is not
/// positive.
Status checkOptions(const CommunicatorOptions &options);

/// Every rank announces itself under "<prefix>/rank/<r>" (its world size
/// and `host`) and waits up to `timeoutMs` for all others, so that a rank
/// that never comes is named (Unavailable), and a launch whose ranks
/// disagree on the world is refused (InvalidArgument).
Status join(Store &store, const LaunchInfo &launch, const std::string &prefix,
            const std::string &host, int64_t timeoutMs);

} // namespace nnc::runtime::collectives

#endif // NNC_RUNTIME_LIB_COLLECTIVESINTERNAL_H
