//===- Status.cpp - runtime status values ---------------------------------===//

#include "nnc/runtime/Status.h"

namespace nnc::runtime {

const char *statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::Ok:
    return "ok";
  case StatusCode::InvalidArgument:
    return "invalid argument";
  case StatusCode::NotFound:
    return "not found";
  case StatusCode::Unavailable:
    return "unavailable";
  case StatusCode::OutOfRange:
    return "out of range";
  case StatusCode::DataLoss:
    return "data loss";
  case StatusCode::Internal:
    return "internal";
  case StatusCode::Unimplemented:
    return "unimplemented";
  }
  return "unknown";
}

std::string Status::toString() const {
  if (isOk())
    return "ok";
  return std::string(statusCodeName(code_)) + ": " + message_;
}

} // namespace nnc::runtime
