//===- Status.h - runtime status values -------------------------*- C++ -*-===//
//
// Status values carried across every runtime boundary instead of exceptions:
// a code and a message naming what failed and where.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_STATUS_H
#define NNC_RUNTIME_STATUS_H

#include <string>
#include <utility>

namespace nnc::runtime {

enum class StatusCode {
  Ok = 0,
  InvalidArgument,
  NotFound,
  Unavailable,
  OutOfRange,
  DataLoss,
  Internal,
  /// Valid but not supported: an absent device or library, an executable
  /// for another machine.
  Unimplemented,
};

/// Returns a stable lowercase name for `code`, e.g. "not found".
const char *statusCodeName(StatusCode code);

class [[nodiscard]] Status {
public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status ok() { return Status(); }

  bool isOk() const { return code_ == StatusCode::Ok; }
  explicit operator bool() const { return isOk(); }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }

  /// "<code name>: <message>", or "ok".
  std::string toString() const;

private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

} // namespace nnc::runtime

/// Returns the status of `expr` from the enclosing function if it failed.
#define NNC_RUNTIME_RETURN_IF_ERROR(expr)                                      \
  do {                                                                         \
    ::nnc::runtime::Status nnc_status_ = (expr);                               \
    if (!nnc_status_.isOk())                                                   \
      return nnc_status_;                                                      \
  } while (false)

#endif // NNC_RUNTIME_STATUS_H
