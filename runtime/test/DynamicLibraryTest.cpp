//===- DynamicLibraryTest.cpp - dlopen with clear errors ------------------===//

#include "nnc/runtime/DynamicLibrary.h"
#include "nnc/runtime/CudaDriver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

using namespace nnc::runtime;

namespace {

TEST(DynamicLibrary, MissingLibraryNamesEveryCandidate) {
  DynamicLibrary lib;
  Status s = DynamicLibrary::open({"libnnc-does-not-exist.so.7", "libnope.so"},
                                  "the test library", lib);
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.code(), StatusCode::Unavailable);
  EXPECT_NE(s.message().find("the test library"), std::string::npos);
  EXPECT_NE(s.message().find("libnnc-does-not-exist.so.7"), std::string::npos);
  EXPECT_NE(s.message().find("libnope.so"), std::string::npos);
  EXPECT_FALSE(lib.isOpen());
}

TEST(DynamicLibrary, ResolvesAndCallsASymbol) {
  DynamicLibrary lib;
  ASSERT_TRUE(DynamicLibrary::open({"libm.so.6"}, "libm", lib).isOk());
  void *address = nullptr;
  ASSERT_TRUE(lib.lookup("cos", &address).isOk());
  auto cosine = reinterpret_cast<double (*)(double)>(address);
  EXPECT_DOUBLE_EQ(cosine(0.0), 1.0);
}

TEST(DynamicLibrary, MissingSymbolNamesSymbolAndLibrary) {
  DynamicLibrary lib;
  ASSERT_TRUE(DynamicLibrary::open({"libm.so.6"}, "libm", lib).isOk());
  void *address = reinterpret_cast<void *>(0x1);
  Status s = lib.lookup("nnc_no_such_symbol", &address);
  EXPECT_EQ(s.code(), StatusCode::NotFound);
  EXPECT_NE(s.message().find("nnc_no_such_symbol"), std::string::npos);
  EXPECT_NE(s.message().find("libm.so.6"), std::string::npos);
  EXPECT_EQ(address, nullptr);
}

TEST(DynamicLibrary, MoveTransfersOwnership) {
  DynamicLibrary a;
  ASSERT_TRUE(DynamicLibrary::open({"libm.so.6"}, "libm", a).isOk());
  DynamicLibrary b = std::move(a);
  EXPECT_FALSE(a.isOpen());
  EXPECT_TRUE(b.isOpen());
  EXPECT_EQ(b.path(), "libm.so.6");
}

TEST(CudaDriver, LibraryWithoutDriverSymbolsIsRejected) {
  // A real library that is not the driver: loading must fail on the first
  // missing entry point, naming it, rather than crash later.
  setenv("NNC_CUDA_DRIVER", "libm.so.6", 1);
  CudaDriver driver;
  Status s = CudaDriver::load(driver);
  unsetenv("NNC_CUDA_DRIVER");
  EXPECT_EQ(s.code(), StatusCode::NotFound);
  EXPECT_NE(s.message().find("cuInit"), std::string::npos);
  EXPECT_EQ(driver.cuInit, nullptr);
}

TEST(CudaDriver, AbsentDriverIsAClearError) {
  setenv("NNC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
  CudaDriver driver;
  Status s = CudaDriver::load(driver);
  unsetenv("NNC_CUDA_DRIVER");
  EXPECT_EQ(s.code(), StatusCode::Unavailable);
  EXPECT_NE(s.message().find("CUDA driver"), std::string::npos);
  EXPECT_NE(s.message().find("/nonexistent/libcuda.so.1"), std::string::npos);
}

TEST(CudaDriver, DefaultLoadEitherWorksOrSaysWhy) {
  CudaDriver driver;
  Status s = CudaDriver::load(driver);
  if (s.isOk()) {
    EXPECT_NE(driver.cuInit, nullptr);
    EXPECT_NE(driver.cuDeviceGetCount, nullptr);
  } else {
    EXPECT_EQ(s.code(), StatusCode::Unavailable);
    EXPECT_NE(s.message().find("libcuda.so.1"), std::string::npos);
  }
}

} // namespace
