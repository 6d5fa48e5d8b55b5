//===- TestUtils.h - shared helpers of the runtime unit tests ---*- C++ -*-===//
//
// EXPECT_ERROR(status, text): the status is an error whose message contains
// `text`.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_TEST_TESTUTILS_H
#define NNC_RUNTIME_TEST_TESTUTILS_H

#include "nnc/runtime/Status.h"

#include <gtest/gtest.h>

#include <string>

namespace nnc::runtime::test {

inline bool contains(const Status &s, const std::string &text) {
  return s.message().find(text) != std::string::npos;
}

} // namespace nnc::runtime::test

#define EXPECT_ERROR(status, text)                                             \
  do {                                                                         \
    ::nnc::runtime::Status s_ = (status);                                      \
    EXPECT_FALSE(s_.isOk());                                                   \
    EXPECT_TRUE(::nnc::runtime::test::contains(s_, text)) << s_.toString();    \
  } while (false)

#endif // NNC_RUNTIME_TEST_TESTUTILS_H
