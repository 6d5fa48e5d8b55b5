//===- ArgHelpers.h - the command lines of the tools ------------*- C++ -*-===//
//
// takeOptionValue: an option's value given as `--name=value` or as
// `--name value`, for the subcommands that parse their own command line.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TOOLS_COMMON_ARGHELPERS_H
#define NNC_TOOLS_COMMON_ARGHELPERS_H

#include <string>

namespace nnc::tools {

/// The value of option `name`, which argv[i] gives: as `name=value`, or as
/// `name` followed by the value (taken: `i` moves past it). False when the
/// option ends the command line without one.
inline bool takeOptionValue(int argc, char **argv, int &i,
                            const std::string &name, std::string &value) {
  std::string arg = argv[i];
  if (name.size() < arg.size()) {
    value = arg.substr(name.size() + 1);
    return true;
  }
  if (i + 1 >= argc)
    return false;
  value = argv[++i];
  return true;
}

} // namespace nnc::tools

#endif // NNC_TOOLS_COMMON_ARGHELPERS_H
