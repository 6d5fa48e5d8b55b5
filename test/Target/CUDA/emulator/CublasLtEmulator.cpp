//===- CublasLtEmulator.cpp - cuBLASLt, emulated on the host --------------===//
//
// Test-only: the cuBLASLt entry points of libnnc_cuda_emulator.so, so that
// a runtime running on the emulated driver opens this same library as its
// libcublasLt.so.13 and its GEMMs run on a machine without a GPU. They have
// the C ABI of cublasLt.h (CUDA 13): handles and descriptors are opaque
// pointers, the enumerations ints, and the few constants are below with
// their values there; no CUDA header is included. They are declared from
// the runtime's table (nnc/runtime/CublasLtSymbols.def), as the driver's
// are from its: the runtime calls them with exactly these types, which
// UBSan's function check compares.
//
// What it emulates: cublasLtMatmul with CUBLAS_COMPUTE_32F and CUDA_R_32F
// scales given by host pointers, on column-major f32, f16 or bf16 matrices
// (A and B of one type, C and D of one type, f32 or A's), transposed or
// not, batched with strided offsets (0 broadcasts one matrix), with the
// epilogues DEFAULT, RELU, BIAS and RELU_BIAS: a bias vector of one element
// per row of D, added to each of its columns, f32, f16 or bf16 (D's type
// unless BIAS_DATA_TYPE says), strided over batch entries by
// BIAS_BATCH_STRIDE (0 broadcasts it); matmul descriptors, matrix layouts
// and preferences with the attributes a runtime sets for that; a heuristic
// that offers one algo, which needs no workspace. A matmul is host work on
// the emulated stream (CudaEmulator.cpp): ordered with the stream's
// launches and copies, or recorded by its capture, with alpha, beta and the
// bias pointer as they were at the call, and replayed by cuGraphLaunch;
// every matrix's footprint, and the bias vector's, is checked against the
// live allocations as a copy's is.
//
// It is a reference implementation with cuBLASLt's signatures, not NVIDIA's
// arithmetic: no tensor cores, no TF32, no split-k. Each output is
// accumulated in float with k ascending (a product rounded to float, then
// added), f16 and bf16 inputs and biases are converted to float exactly;
// then alpha * sum + beta * C, plus the bias, through ReLU, each in float,
// and f16 and bf16 outputs are rounded to nearest even once. Results close
// to cuBLAS's are expected; bitwise equal ones are not. cuBLAS does not say
// what ReLU makes of NaN: here NaN stays NaN.
//
// What it does not: other compute, scale or data types, device pointer
// modes, the other epilogues (GELU, the AUX outputs, gradients), bias and
// D type pairs that cuBLASLt itself may refuse (any of the three is taken
// with any D), row-major or tiled orders, pointer array batches, the
// Get*/Init* entry points, cublasLtMatmulAlgoInit and algo configuration,
// and the heuristic's choice among several algos. Failures print why to
// stderr, as the driver's do.
//
//===----------------------------------------------------------------------===//

#include "Emulator.h"

#include "nnc/runtime/CublasLt.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

// The entry points, declared from the runtime's table: a definition below
// whose parameters differ from the .def conflicts with its declaration and
// fails to compile.
#define NNC_LT_PFN(name, ...)                                                  \
  extern "C" __attribute__((visibility("default"))) int name(__VA_ARGS__);
#include "nnc/runtime/CublasLtSymbols.def"
#undef NNC_LT_PFN
extern "C" __attribute__((visibility("default"))) size_t
cublasLtGetVersion(void);
extern "C" __attribute__((visibility("default"))) const char *
cublasLtGetStatusString(int status);
static_assert(
    std::is_same_v<decltype(&cublasLtGetVersion),
                   decltype(nnc::runtime::CublasLt::cublasLtGetVersion)> &&
        std::is_same_v<
            decltype(&cublasLtGetStatusString),
            decltype(nnc::runtime::CublasLt::cublasLtGetStatusString)>,
    "the emulator's cuBLASLt differs from the runtime's table");

// Referenced, so that an entry point of the .def left undefined fails to
// link rather than to resolve at run time.
__attribute__((used)) static void *const kLtEntryPoints[] = {
#define NNC_LT_PFN(name, ...) reinterpret_cast<void *>(&name),
#include "nnc/runtime/CublasLtSymbols.def"
#undef NNC_LT_PFN
    reinterpret_cast<void *>(&cublasLtGetVersion),
    reinterpret_cast<void *>(&cublasLtGetStatusString)};

namespace nnc::cuda_emulator {
namespace {

// cublasStatus_t (cublas_api.h).
enum Status : int {
  kSuccess = 0,
  kNotInitialized = 1,
  kAllocFailed = 3,
  kInvalidValue = 7,
  kArchMismatch = 8,
  kMappingError = 11,
  kExecutionFailed = 13,
  kInternalError = 14,
  kNotSupported = 15,
  kLicenseError = 16,
};

// cudaDataType (library_types.h).
constexpr int kR32F = 0, kR16F = 2, kR16BF = 14;
// cublasComputeType_t (cublas_api.h).
constexpr int kCompute32F = 68;
// cublasOperation_t (cublas_api.h): CUBLAS_OP_C and CUBLAS_OP_CONJG are 2
// and 3.
constexpr int32_t kOpN = 0, kOpT = 1;
// cublasLtPointerMode_t, cublasLtEpilogue_t, cublasLtOrder_t and
// cublasLtMatmulSearch_t (cublasLt.h).
constexpr int32_t kPointerModeHost = 0;
constexpr uint32_t kEpilogueDefault = 1, kEpilogueRelu = 2, kEpilogueBias = 4,
                   kEpilogueReluBias = kEpilogueRelu | kEpilogueBias;
constexpr int32_t kOrderCol = 0;
constexpr uint32_t kSearchBestFit = 0;
// cublasLtMatmulDescAttributes_t (cublasLt.h).
enum {
  kDescPointerMode = 2,
  kDescTransA = 3,
  kDescTransB = 4,
  kDescEpilogue = 7,
  kDescBiasPointer = 8,
  kDescBiasBatchStride = 10,
  kDescBiasDataType = 26
};
// CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE's default: the bias is of D's type.
constexpr int32_t kBiasTypeOfD = -1;
// cublasLtMatrixLayoutAttribute_t (cublasLt.h).
enum { kLayoutOrder = 1, kLayoutBatchCount = 5, kLayoutStridedBatchOffset = 6 };
// cublasLtMatmulPreferenceAttributes_t (cublasLt.h): the four minimum
// alignments are consecutive, A's first.
enum {
  kPrefSearchMode = 0,
  kPrefMaxWorkspaceBytes = 1,
  kPrefMinAlignmentA = 5,
  kPrefMinAlignmentD = 8
};
// What cublasLt.h gives the minimum alignments by default.
constexpr uint32_t kDefaultAlignment = 256;

/// cublasLtMatmulAlgo_t and cublasLtMatmulHeuristicResult_t, as the
/// runtime declares them; checked here against cublasLt.h's layout.
using Algo = nnc::runtime::CublasLtAlgo;
using HeuristicResult = nnc::runtime::CublasLtHeuristicResult;
static_assert(sizeof(Algo) == 64, "cublasLtMatmulAlgo_t's size");
static_assert(sizeof(HeuristicResult) == 96 &&
                  offsetof(HeuristicResult, workspaceSize) == 64 &&
                  offsetof(HeuristicResult, state) == 72 &&
                  offsetof(HeuristicResult, wavesCount) == 76,
              "cublasLtMatmulHeuristicResult_t's layout");

/// The emulator's one algo: data[0] is this marker ("nnc-emLt"), data[1]
/// the version of its layout, data[2..5] the minimum alignments of A, B, C
/// and D that the preference asked for, which the matmul then requires of
/// its pointers, as an algo chosen for them would.
constexpr uint64_t kAlgoMarker = 0x744c6d652d636e6eull;
constexpr uint64_t kAlgoVersion = 1;

constexpr uint64_t kMaxDimension = 0x7fffffff; // cuBLASLt's int32 limit

struct MatmulDesc {
  int32_t transA = kOpN, transB = kOpN;
  uint32_t epilogue = kEpilogueDefault;
  /// The bias epilogues' vector: its device address, as set (the matmul
  /// reads it at its call), its batch stride in elements, its type.
  const void *bias = nullptr;
  int64_t biasStride = 0;
  int32_t biasType = kBiasTypeOfD;
};

struct Layout {
  int type;
  uint64_t rows, cols;
  int64_t ld;
  int32_t batch = 1;
  int64_t stride = 0; // elements
};

struct Preference {
  uint64_t maxWorkspace = 0;
  uint32_t alignment[4] = {kDefaultAlignment, kDefaultAlignment,
                           kDefaultAlignment, kDefaultAlignment};
};

struct Handle {};

template <typename T> using Table = std::map<const void *, std::unique_ptr<T>>;

struct LtState {
  std::mutex mutex;
  Table<Handle> handles;
  Table<MatmulDesc> descs;
  Table<Layout> layouts;
  Table<Preference> preferences;
};

// Never destroyed: a host's static destructors may still destroy handles.
LtState *lt = new LtState;

using Lock = std::unique_lock<std::mutex>;

template <typename T>
int create(Table<T> &table, void **out, std::unique_ptr<T> value,
           const char *call) {
  if (!out) {
    diag("%s: null result", call);
    return kInvalidValue;
  }
  *out = value.get();
  table.emplace(value.get(), std::move(value));
  return kSuccess;
}

/// Null is nothing to destroy, as free(nullptr).
template <typename T>
int destroy(Table<T> &table, void *handle, const char *call, const char *what) {
  if (!handle || table.erase(handle))
    return kSuccess;
  diag("%s: unknown %s %p", call, what, handle);
  return kInvalidValue;
}

template <typename T>
int lookup(const Table<T> &table, const void *handle, const char *call,
           const char *what, T &value) {
  auto it = table.find(handle);
  if (it != table.end()) {
    value = *it->second;
    return kSuccess;
  }
  diag("%s: unknown %s %p", call, what, handle);
  return kInvalidValue;
}

/// cuBLAS gives a null handle NOT_INITIALIZED; an unknown one is a bug.
int checkHandle(void *handle, const char *call) {
  if (!handle) {
    diag("%s: null cuBLASLt handle", call);
    return kNotInitialized;
  }
  if (lt->handles.count(handle))
    return kSuccess;
  diag("%s: unknown cuBLASLt handle %p", call, handle);
  return kInvalidValue;
}

/// An attribute's value: `size` must be its type's, as cuBLASLt checks.
template <typename T>
int readAttribute(const char *call, int attr, const char *name, const void *buf,
                  size_t size, T &value) {
  if (!buf || size != sizeof(T)) {
    diag("%s: attribute %d (%s) takes %zu bytes, got %zu%s", call, attr, name,
         sizeof(T), size, buf ? "" : " and a null buffer");
    return kInvalidValue;
  }
  std::memcpy(&value, buf, sizeof(T));
  return kSuccess;
}

const char *typeName(int type) {
  switch (type) {
  case kR32F:
    return "CUDA_R_32F";
  case kR16F:
    return "CUDA_R_16F";
  case kR16BF:
    return "CUDA_R_16BF";
  }
  return "an unsupported type";
}

size_t elementSize(int type) { return type == kR32F ? 4 : 2; }

//===----------------------------------------------------------------------===//
// f16 and bf16, bit by bit
//===----------------------------------------------------------------------===//

uint32_t bitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

float floatOf(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float fromHalf(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  if (exponent == 0x1f) // infinity, NaN (payload kept)
    return floatOf(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0)
    return floatOf(sign | ((exponent + 112) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa * 2^-24, exact in float.
  float magnitude = float(mantissa) * floatOf(0x33800000u); // 2^-24
  return sign ? -magnitude : magnitude;
}

/// Rounds `x` right by `shift` bits (1 to 31) to nearest, ties to even.
uint32_t roundShift(uint32_t x, unsigned shift) {
  uint32_t quotient = x >> shift, rest = x & ((1u << shift) - 1),
           half = 1u << (shift - 1);
  return quotient + (rest > half || (rest == half && (quotient & 1)));
}

uint16_t toHalf(float f) {
  uint32_t x = bitsOf(f);
  uint16_t sign = (x >> 16) & 0x8000;
  x &= 0x7fffffffu;
  if (x > 0x7f800000u) // NaN: quiet, stays NaN whatever its payload
    return sign | 0x7e00 | ((x >> 13) & 0x3ff);
  if (x >= 0x477ff000u) // 65520 and up round to infinity
    return sign | 0x7c00;
  if (x >= 0x38800000u) // a normal half (2^-14 and up): rebias 127 to 15
    return sign | uint16_t(roundShift(x - 0x38000000u, 13));
  if (x <= 0x33000000u) // 2^-25 and below round to zero (the tie to even)
    return sign;
  // A subnormal half, in units of 2^-24: the 24-bit significand shifted
  // right by 126 - exponent (14 to 23). Rounding up into 0x400 gives the
  // smallest normal half, as it should.
  uint32_t exponent = x >> 23, significand = (x & 0x7fffffu) | 0x800000u;
  return sign | uint16_t(roundShift(significand, 126 - exponent));
}

float fromBfloat(uint16_t b) { return floatOf(uint32_t(b) << 16); }

uint16_t toBfloat(float f) {
  uint32_t x = bitsOf(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) // NaN: quiet, whatever its payload
    return uint16_t((x >> 16) | 0x0040);
  // Overflow rounds to infinity by the same carry.
  return uint16_t(roundShift(x, 16));
}

float load(const char *p, int type) {
  if (type == kR32F) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return type == kR16F ? fromHalf(h) : fromBfloat(h);
}

void store(char *p, int type, float f) {
  if (type == kR32F) {
    std::memcpy(p, &f, 4);
    return;
  }
  uint16_t h = type == kR16F ? toHalf(f) : toBfloat(f);
  std::memcpy(p, &h, 2);
}

//===----------------------------------------------------------------------===//
// The GEMM
//===----------------------------------------------------------------------===//

/// A matrix of the problem: its layout and, for a matmul, its data.
struct Operand {
  Layout layout;
  const char *data = nullptr;

  /// Bytes from the first element to past the last over all batch entries;
  /// false if they do not fit in an address space.
  bool footprint(size_t &bytes) const {
    const Layout &l = layout;
    bytes = 0;
    if (l.rows == 0 || l.cols == 0)
      return true;
    unsigned __int128 last = (unsigned __int128)(l.batch - 1) * l.stride +
                             (unsigned __int128)(l.cols - 1) * l.ld +
                             (l.rows - 1);
    unsigned __int128 total = (last + 1) * elementSize(l.type);
    if (total > (unsigned __int128)PTRDIFF_MAX)
      return false;
    bytes = size_t(total);
    return true;
  }

  /// Element (row, col) of batch entry `b`, in float.
  float at(uint64_t b, uint64_t row, uint64_t col) const {
    const Layout &l = layout;
    uint64_t index = b * uint64_t(l.stride) + col * uint64_t(l.ld) + row;
    return load(data + index * elementSize(l.type), l.type);
  }
};

/// The bias epilogues' vector: one element per row of D, added to every
/// column; batch entry e's starts `stride` elements after entry e - 1's.
struct Bias {
  int type = kR32F;
  int64_t stride = 0; // elements; 0 broadcasts one vector
  const char *data = nullptr;

  /// Bytes from the first element to past the last over `batch` entries of
  /// `rows` elements; false if they do not fit in an address space.
  bool footprint(uint64_t rows, int32_t batch, size_t &bytes) const {
    bytes = 0;
    if (rows == 0)
      return true;
    unsigned __int128 last =
        (unsigned __int128)(batch - 1) * uint64_t(stride) + (rows - 1);
    unsigned __int128 total = (last + 1) * elementSize(type);
    if (total > (unsigned __int128)PTRDIFF_MAX)
      return false;
    bytes = size_t(total);
    return true;
  }
};

/// D = epilogue(alpha * op(A) * op(B) + beta * C), cuBLAS's column-major
/// GEMM, with the epilogue adding a bias vector, then applying ReLU.
struct Gemm {
  uint64_t m = 0, n = 0, k = 0;
  int32_t batch = 1;
  bool transA = false, transB = false;
  bool hasBias = false, relu = false;
  float alpha = 1, beta = 0;
  Operand a, b, c, d;
  Bias bias;
  char *out = nullptr; // D's data, which run() writes

  /// Runs it, on the stream's thread. A batch entry's op(A) and op(B) are
  /// first unpacked into float (exactly), op(A) by columns, so that a
  /// column of D is m independent sums that the compiler may vectorize
  /// across rows. Each sum still runs k ascending, a product rounded to
  /// float then added: the file is built with -ffp-contract=off, no FMA.
  /// Then, in float, each output is alpha * sum, plus beta * C, plus the
  /// bias (converted exactly), through ReLU, and rounded to D's type once.
  void run() const {
    std::vector<float> pa(m * k), pb(k * n), sum(m), rowBias(m);
    for (uint64_t e = 0; e < uint64_t(batch); ++e) {
      if (hasBias)
        for (uint64_t i = 0; i < m; ++i)
          rowBias[i] = load(bias.data + (e * uint64_t(bias.stride) + i) *
                                            elementSize(bias.type),
                            bias.type);
      // pa[p * m + i] = op(A)(i, p); pb[j * k + p] = op(B)(p, j).
      for (uint64_t p = 0; p < k; ++p)
        for (uint64_t i = 0; i < m; ++i)
          pa[p * m + i] = transA ? a.at(e, p, i) : a.at(e, i, p);
      for (uint64_t j = 0; j < n; ++j)
        for (uint64_t p = 0; p < k; ++p)
          pb[j * k + p] = transB ? b.at(e, j, p) : b.at(e, p, j);
      for (uint64_t j = 0; j < n; ++j) {
        std::fill(sum.begin(), sum.end(), 0.0f);
        for (uint64_t p = 0; p < k; ++p) {
          const float y = pb[j * k + p];
          const float *column = &pa[p * m];
          for (uint64_t i = 0; i < m; ++i) {
            float product = column[i] * y;
            sum[i] += product;
          }
        }
        const Layout &dl = d.layout;
        char *target = out + (e * uint64_t(dl.stride) + j * uint64_t(dl.ld)) *
                                 elementSize(dl.type);
        for (uint64_t i = 0; i < m; ++i) {
          float value = alpha * sum[i];
          // beta == 0 reads nothing of C: NaN there must not reach D.
          if (beta != 0.0f) {
            float scaled = beta * c.at(e, i, j);
            value += scaled;
          }
          if (hasBias)
            value += rowBias[i];
          // ReLU, max(value, 0): -0 gives +0 as IEEE's maximum would. NaN
          // stays NaN, a guess: cuBLAS does not document it, and a kernel
          // using fmaxf (PTX max, which returns the operand that is not
          // NaN) would give 0; propagated, a NaN upstream shows in D
          // rather than being masked.
          if (relu && value <= 0.0f)
            value = 0.0f;
          store(target + i * elementSize(dl.type), dl.type, value);
        }
      }
    }
  }
};

/// The GEMM that `desc` makes of the layouts, or INVALID_VALUE naming what
/// does not fit cuBLAS's rules.
int describe(const char *call, const MatmulDesc &desc, const Layout &a,
             const Layout &b, const Layout &c, const Layout &d, Gemm &gemm) {
  if (a.type != b.type) {
    diag("%s: A is %s and B %s; they must be of one type", call,
         typeName(a.type), typeName(b.type));
    return kInvalidValue;
  }
  if (c.type != d.type || (d.type != kR32F && d.type != a.type)) {
    diag("%s: C is %s and D %s with A and B %s; C and D must be of one type, "
         "CUDA_R_32F or A's",
         call, typeName(c.type), typeName(d.type), typeName(a.type));
    return kInvalidValue;
  }
  if (a.batch != b.batch || a.batch != c.batch || a.batch != d.batch) {
    diag("%s: batch counts A %d, B %d, C %d, D %d differ", call, a.batch,
         b.batch, c.batch, d.batch);
    return kInvalidValue;
  }
  bool transA = desc.transA == kOpT, transB = desc.transB == kOpT;
  uint64_t m = d.rows, n = d.cols;
  uint64_t aRows = transA ? a.cols : a.rows, aCols = transA ? a.rows : a.cols;
  uint64_t bRows = transB ? b.cols : b.rows, bCols = transB ? b.rows : b.cols;
  if (aRows != m || bCols != n || aCols != bRows || c.rows != m ||
      c.cols != n) {
    diag("%s: op(A) is %llux%llu (TRANSA %c), op(B) %llux%llu (TRANSB %c), "
         "C %llux%llu, D %llux%llu: they must be m x k, k x n, m x n and "
         "m x n",
         call, (unsigned long long)aRows, (unsigned long long)aCols,
         transA ? 'T' : 'N', (unsigned long long)bRows,
         (unsigned long long)bCols, transB ? 'T' : 'N',
         (unsigned long long)c.rows, (unsigned long long)c.cols,
         (unsigned long long)m, (unsigned long long)n);
    return kInvalidValue;
  }
  // Batch entries of D that overlap would be written twice.
  if (d.batch > 1 && m > 0 && n > 0 &&
      (unsigned __int128)d.stride < (unsigned __int128)(n - 1) * d.ld + m) {
    diag("%s: D's %d batch entries of %llux%llu (ld %lld) overlap at a "
         "strided batch offset of %lld elements",
         call, d.batch, (unsigned long long)m, (unsigned long long)n,
         (long long)d.ld, (long long)d.stride);
    return kInvalidValue;
  }
  gemm.m = m;
  gemm.n = n;
  gemm.k = aCols;
  gemm.batch = d.batch;
  gemm.transA = transA;
  gemm.transB = transB;
  gemm.a.layout = a;
  gemm.b.layout = b;
  gemm.c.layout = c;
  gemm.d.layout = d;
  // The epilogue, and the bias vector's address as the descriptor has it
  // now: a matmul captured keeps it, as it keeps alpha. The heuristic does
  // not read it (cuBLASLt uses its value for alignment only).
  gemm.hasBias = desc.epilogue & kEpilogueBias;
  gemm.relu = desc.epilogue & kEpilogueRelu;
  gemm.bias.type = desc.biasType == kBiasTypeOfD ? d.type : desc.biasType;
  gemm.bias.stride = desc.biasStride;
  gemm.bias.data = static_cast<const char *>(desc.bias);
  return kSuccess;
}

/// The handle, descriptor and layouts of a heuristic or matmul call, looked
/// up under the lock and described.
int lookupProblem(const char *call, void *handle, void *desc, void *adesc,
                  void *bdesc, void *cdesc, void *ddesc, Gemm &gemm) {
  Lock lock(lt->mutex);
  if (int r = checkHandle(handle, call))
    return r;
  MatmulDesc md;
  Layout a, b, c, d;
  if (int r = lookup(lt->descs, desc, call, "matmul descriptor", md))
    return r;
  if (int r = lookup(lt->layouts, adesc, call, "matrix layout (Adesc)", a))
    return r;
  if (int r = lookup(lt->layouts, bdesc, call, "matrix layout (Bdesc)", b))
    return r;
  if (int r = lookup(lt->layouts, cdesc, call, "matrix layout (Cdesc)", c))
    return r;
  if (int r = lookup(lt->layouts, ddesc, call, "matrix layout (Ddesc)", d))
    return r;
  return describe(call, md, a, b, c, d, gemm);
}

/// cuBLAS's status for the driver's answer to the submission: a bad range
/// or stream is the caller's value; a capture that refuses the work is a
/// failed launch, as cuBLAS reports one.
int statusOf(CUresult r) {
  switch (r) {
  case CUDA_SUCCESS:
    return kSuccess;
  case CUDA_ERROR_INVALID_VALUE:
  case CUDA_ERROR_INVALID_HANDLE:
    return kInvalidValue;
  case CUDA_ERROR_NOT_INITIALIZED:
  case CUDA_ERROR_INVALID_CONTEXT:
    return kNotInitialized;
  case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED:
  case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED:
  case CUDA_ERROR_STREAM_CAPTURE_IMPLICIT:
    return kExecutionFailed;
  default:
    return kInternalError;
  }
}

} // namespace
} // namespace nnc::cuda_emulator

using namespace nnc::cuda_emulator;

// Declared above, from the runtime's table.
#define NNC_LT_API extern "C"

//===----------------------------------------------------------------------===//
// Handles, versions, statuses
//===----------------------------------------------------------------------===//

NNC_LT_API int cublasLtCreate(void **handle) {
  Lock lock(lt->mutex);
  return create(lt->handles, handle, std::make_unique<Handle>(),
                "cublasLtCreate");
}

NNC_LT_API int cublasLtDestroy(void *handle) {
  Lock lock(lt->mutex);
  if (int r = checkHandle(handle, "cublasLtDestroy"))
    return r;
  lt->handles.erase(handle);
  return kSuccess;
}

/// The emulator's version, which says it emulates cuBLASLt 13.0.0
/// (CUBLAS_VERSION's encoding: major * 10000 + minor * 100 + patch).
NNC_LT_API size_t cublasLtGetVersion(void) { return 130000; }

NNC_LT_API const char *cublasLtGetStatusString(int status) {
  switch (status) {
  case kSuccess:
    return "CUBLAS_STATUS_SUCCESS: success";
  case kNotInitialized:
    return "CUBLAS_STATUS_NOT_INITIALIZED: the cuBLASLt handle is null or "
           "the emulated driver has no current context";
  case kAllocFailed:
    return "CUBLAS_STATUS_ALLOC_FAILED: resource allocation failed";
  case kInvalidValue:
    return "CUBLAS_STATUS_INVALID_VALUE: an invalid value was passed (the nnc "
           "CUDA emulator prints why to stderr)";
  case kArchMismatch:
    return "CUBLAS_STATUS_ARCH_MISMATCH: the device does not support the "
           "feature";
  case kMappingError:
    return "CUBLAS_STATUS_MAPPING_ERROR: access to GPU memory failed";
  case kExecutionFailed:
    return "CUBLAS_STATUS_EXECUTION_FAILED: the GPU program failed to launch "
           "(the stream's capture refused it; see stderr)";
  case kInternalError:
    return "CUBLAS_STATUS_INTERNAL_ERROR: an internal operation failed";
  case kNotSupported:
    return "CUBLAS_STATUS_NOT_SUPPORTED: not supported by the nnc emulated "
           "cuBLASLt, a reference GEMM in f32 arithmetic (see stderr)";
  case kLicenseError:
    return "CUBLAS_STATUS_LICENSE_ERROR: license error";
  }
  return "unknown cuBLAS status";
}

//===----------------------------------------------------------------------===//
// Matmul descriptors
//===----------------------------------------------------------------------===//

NNC_LT_API int cublasLtMatmulDescCreate(void **desc, int computeType,
                                        int scaleType) {
  const char *call = "cublasLtMatmulDescCreate";
  if (computeType != kCompute32F || scaleType != kR32F) {
    diag("%s: compute type %d with scale type %d; the emulator has "
         "CUBLAS_COMPUTE_32F (%d) with CUDA_R_32F (%d) scales only",
         call, computeType, scaleType, kCompute32F, kR32F);
    return kNotSupported;
  }
  Lock lock(lt->mutex);
  return create(lt->descs, desc, std::make_unique<MatmulDesc>(), call);
}

NNC_LT_API int cublasLtMatmulDescDestroy(void *desc) {
  Lock lock(lt->mutex);
  return destroy(lt->descs, desc, "cublasLtMatmulDescDestroy",
                 "matmul descriptor");
}

NNC_LT_API int cublasLtMatmulDescSetAttribute(void *desc, int attr,
                                              const void *buf, size_t size) {
  const char *call = "cublasLtMatmulDescSetAttribute";
  Lock lock(lt->mutex);
  auto it = lt->descs.find(desc);
  if (it == lt->descs.end()) {
    diag("%s: unknown matmul descriptor %p", call, desc);
    return kInvalidValue;
  }
  MatmulDesc &d = *it->second;
  switch (attr) {
  case kDescTransA:
  case kDescTransB: {
    const char *name = attr == kDescTransA ? "TRANSA" : "TRANSB";
    int32_t op;
    if (int r = readAttribute(call, attr, name, buf, size, op))
      return r;
    if (op != kOpN && op != kOpT) {
      diag("%s: %s %d; the emulator has CUBLAS_OP_N (0) and CUBLAS_OP_T (1)",
           call, name, op);
      return op == 2 || op == 3 ? kNotSupported : kInvalidValue;
    }
    (attr == kDescTransA ? d.transA : d.transB) = op;
    return kSuccess;
  }
  case kDescPointerMode: {
    int32_t mode;
    if (int r = readAttribute(call, attr, "POINTER_MODE", buf, size, mode))
      return r;
    if (mode != kPointerModeHost) {
      diag("%s: pointer mode %d; the emulator reads alpha and beta from host "
           "memory only (CUBLASLT_POINTER_MODE_HOST)",
           call, mode);
      return kNotSupported;
    }
    return kSuccess;
  }
  case kDescEpilogue: {
    uint32_t epilogue;
    if (int r = readAttribute(call, attr, "EPILOGUE", buf, size, epilogue))
      return r;
    if (epilogue != kEpilogueDefault && epilogue != kEpilogueRelu &&
        epilogue != kEpilogueBias && epilogue != kEpilogueReluBias) {
      diag("%s: epilogue %u; the emulator has CUBLASLT_EPILOGUE_DEFAULT (%u), "
           "RELU (%u), BIAS (%u) and RELU_BIAS (%u) only",
           call, epilogue, kEpilogueDefault, kEpilogueRelu, kEpilogueBias,
           kEpilogueReluBias);
      return kNotSupported;
    }
    d.epilogue = epilogue;
    return kSuccess;
  }
  case kDescBiasPointer:
    // Any value, null too: only a matmul with a bias epilogue reads it.
    return readAttribute(call, attr, "BIAS_POINTER", buf, size, d.bias);
  case kDescBiasBatchStride: {
    int64_t stride;
    if (int r =
            readAttribute(call, attr, "BIAS_BATCH_STRIDE", buf, size, stride))
      return r;
    if (stride < 0) {
      diag("%s: bias batch stride %lld; negative strides are not emulated",
           call, (long long)stride);
      return kNotSupported;
    }
    d.biasStride = stride;
    return kSuccess;
  }
  case kDescBiasDataType: {
    int32_t type;
    if (int r = readAttribute(call, attr, "BIAS_DATA_TYPE", buf, size, type))
      return r;
    if (type != kBiasTypeOfD && type != kR32F && type != kR16F &&
        type != kR16BF) {
      diag("%s: bias data type %d; the emulator has -1 (D's type), "
           "CUDA_R_32F, CUDA_R_16F and CUDA_R_16BF",
           call, type);
      return kNotSupported;
    }
    d.biasType = type;
    return kSuccess;
  }
  }
  diag("%s: attribute %d is not emulated (TRANSA, TRANSB, POINTER_MODE, "
       "EPILOGUE, BIAS_POINTER, BIAS_BATCH_STRIDE and BIAS_DATA_TYPE are)",
       call, attr);
  return kNotSupported;
}

//===----------------------------------------------------------------------===//
// Matrix layouts
//===----------------------------------------------------------------------===//

NNC_LT_API int cublasLtMatrixLayoutCreate(void **layout, int type,
                                          uint64_t rows, uint64_t cols,
                                          int64_t ld) {
  const char *call = "cublasLtMatrixLayoutCreate";
  if (type != kR32F && type != kR16F && type != kR16BF) {
    diag("%s: data type %d; the emulator has CUDA_R_32F, CUDA_R_16F and "
         "CUDA_R_16BF",
         call, type);
    return kNotSupported;
  }
  if (rows > kMaxDimension || cols > kMaxDimension) {
    diag("%s: %llux%llu is beyond cuBLASLt's int32 dimensions", call,
         (unsigned long long)rows, (unsigned long long)cols);
    return kNotSupported;
  }
  // Column-major: a column's rows may not overlap the next column.
  if (ld < 1 || uint64_t(ld) < rows) {
    diag("%s: leading dimension %lld for %llu rows; it must be at least "
         "max(1, rows)",
         call, (long long)ld, (unsigned long long)rows);
    return kInvalidValue;
  }
  auto l = std::make_unique<Layout>();
  l->type = type;
  l->rows = rows;
  l->cols = cols;
  l->ld = ld;
  Lock lock(lt->mutex);
  return create(lt->layouts, layout, std::move(l), call);
}

NNC_LT_API int cublasLtMatrixLayoutDestroy(void *layout) {
  Lock lock(lt->mutex);
  return destroy(lt->layouts, layout, "cublasLtMatrixLayoutDestroy",
                 "matrix layout");
}

NNC_LT_API int cublasLtMatrixLayoutSetAttribute(void *layout, int attr,
                                                const void *buf, size_t size) {
  const char *call = "cublasLtMatrixLayoutSetAttribute";
  Lock lock(lt->mutex);
  auto it = lt->layouts.find(layout);
  if (it == lt->layouts.end()) {
    diag("%s: unknown matrix layout %p", call, layout);
    return kInvalidValue;
  }
  Layout &l = *it->second;
  switch (attr) {
  case kLayoutOrder: {
    int32_t order;
    if (int r = readAttribute(call, attr, "ORDER", buf, size, order))
      return r;
    if (order != kOrderCol) {
      diag("%s: order %d; the emulator has CUBLASLT_ORDER_COL (0) only", call,
           order);
      return kNotSupported;
    }
    return kSuccess;
  }
  case kLayoutBatchCount: {
    int32_t count;
    if (int r = readAttribute(call, attr, "BATCH_COUNT", buf, size, count))
      return r;
    if (count < 1) {
      diag("%s: batch count %d", call, count);
      return kInvalidValue;
    }
    l.batch = count;
    return kSuccess;
  }
  case kLayoutStridedBatchOffset: {
    int64_t stride;
    if (int r = readAttribute(call, attr, "STRIDED_BATCH_OFFSET", buf, size,
                              stride))
      return r;
    if (stride < 0) {
      diag("%s: strided batch offset %lld; negative offsets are not emulated",
           call, (long long)stride);
      return kNotSupported;
    }
    l.stride = stride;
    return kSuccess;
  }
  }
  diag("%s: attribute %d is not emulated (ORDER, BATCH_COUNT and "
       "STRIDED_BATCH_OFFSET are)",
       call, attr);
  return kNotSupported;
}

//===----------------------------------------------------------------------===//
// Preferences and the heuristic
//===----------------------------------------------------------------------===//

NNC_LT_API int cublasLtMatmulPreferenceCreate(void **pref) {
  Lock lock(lt->mutex);
  return create(lt->preferences, pref, std::make_unique<Preference>(),
                "cublasLtMatmulPreferenceCreate");
}

NNC_LT_API int cublasLtMatmulPreferenceDestroy(void *pref) {
  Lock lock(lt->mutex);
  return destroy(lt->preferences, pref, "cublasLtMatmulPreferenceDestroy",
                 "matmul preference");
}

NNC_LT_API int cublasLtMatmulPreferenceSetAttribute(void *pref, int attr,
                                                    const void *buf,
                                                    size_t size) {
  const char *call = "cublasLtMatmulPreferenceSetAttribute";
  Lock lock(lt->mutex);
  auto it = lt->preferences.find(pref);
  if (it == lt->preferences.end()) {
    diag("%s: unknown matmul preference %p", call, pref);
    return kInvalidValue;
  }
  Preference &p = *it->second;
  if (attr == kPrefSearchMode) {
    uint32_t mode;
    if (int r = readAttribute(call, attr, "SEARCH_MODE", buf, size, mode))
      return r;
    if (mode != kSearchBestFit) {
      diag("%s: search mode %u; the emulator has CUBLASLT_SEARCH_BEST_FIT (0) "
           "only",
           call, mode);
      return kNotSupported;
    }
    return kSuccess;
  }
  if (attr == kPrefMaxWorkspaceBytes)
    return readAttribute(call, attr, "MAX_WORKSPACE_BYTES", buf, size,
                         p.maxWorkspace);
  if (attr >= kPrefMinAlignmentA && attr <= kPrefMinAlignmentD) {
    static const char *const names[] = {
        "MIN_ALIGNMENT_A_BYTES", "MIN_ALIGNMENT_B_BYTES",
        "MIN_ALIGNMENT_C_BYTES", "MIN_ALIGNMENT_D_BYTES"};
    int which = attr - kPrefMinAlignmentA;
    uint32_t alignment;
    if (int r = readAttribute(call, attr, names[which], buf, size, alignment))
      return r;
    if (alignment == 0 || (alignment & (alignment - 1))) {
      diag("%s: %s %u is not a power of two", call, names[which], alignment);
      return kInvalidValue;
    }
    p.alignment[which] = alignment;
    return kSuccess;
  }
  diag("%s: attribute %d is not emulated (SEARCH_MODE, MAX_WORKSPACE_BYTES "
       "and MIN_ALIGNMENT_{A,B,C,D}_BYTES are)",
       call, attr);
  return kNotSupported;
}

NNC_LT_API int cublasLtMatmulAlgoGetHeuristic(void *handle, void *desc,
                                              void *adesc, void *bdesc,
                                              void *cdesc, void *ddesc,
                                              void *pref, int requested,
                                              HeuristicResult results[],
                                              int *count) {
  const char *call = "cublasLtMatmulAlgoGetHeuristic";
  Gemm gemm;
  if (int r =
          lookupProblem(call, handle, desc, adesc, bdesc, cdesc, ddesc, gemm))
    return r;
  Preference p;
  {
    Lock lock(lt->mutex);
    if (int r = lookup(lt->preferences, pref, call, "matmul preference", p))
      return r;
  }
  if (requested < 1 || !results || !count) {
    diag("%s: %d results requested into %p, count %p", call, requested,
         static_cast<void *>(results), static_cast<void *>(count));
    return kInvalidValue;
  }
  HeuristicResult &result = results[0];
  std::memset(&result, 0, sizeof result);
  result.algo.data[0] = kAlgoMarker;
  result.algo.data[1] = kAlgoVersion;
  for (int i = 0; i < 4; ++i)
    result.algo.data[2 + i] = p.alignment[i];
  result.workspaceSize = 0;
  result.state = kSuccess;
  result.wavesCount = 1.0f;
  *count = 1;
  return kSuccess;
}

//===----------------------------------------------------------------------===//
// The matmul
//===----------------------------------------------------------------------===//

NNC_LT_API int cublasLtMatmul(void *handle, void *desc, const void *alpha,
                              const void *A, void *adesc, const void *B,
                              void *bdesc, const void *beta, const void *C,
                              void *cdesc, void *D, void *ddesc,
                              const Algo *algo, void *workspace,
                              size_t workspaceSize, void *stream) {
  const char *call = "cublasLtMatmul";
  Gemm gemm;
  if (int r =
          lookupProblem(call, handle, desc, adesc, bdesc, cdesc, ddesc, gemm))
    return r;
  if (!alpha || !beta) {
    diag("%s: null alpha or beta", call);
    return kInvalidValue;
  }
  // Host pointer mode: the values now, which a capture replays whatever
  // the caller's variables hold later.
  std::memcpy(&gemm.alpha, alpha, sizeof(float));
  std::memcpy(&gemm.beta, beta, sizeof(float));
  // The emulator's own algo, which records the alignments it was chosen
  // for, or none (cuBLASLt then chooses one for these pointers).
  uint64_t alignment[4] = {1, 1, 1, 1};
  if (algo) {
    const uint64_t *data = algo->data;
    bool valid = data[0] == kAlgoMarker && data[1] == kAlgoVersion;
    for (int i = 0; valid && i < 4; ++i)
      valid = data[2 + i] != 0 && data[2 + i] <= (1ull << 31) &&
              !(data[2 + i] & (data[2 + i] - 1));
    if (!valid) {
      diag("%s: the algo is not one of the emulator's "
           "cublasLtMatmulAlgoGetHeuristic results",
           call);
      return kInvalidValue;
    }
    std::memcpy(alignment, data + 2, sizeof alignment);
  }
  if (workspaceSize > 0 && !workspace) {
    diag("%s: a null workspace of %zu bytes", call, workspaceSize);
    return kInvalidValue;
  }
  gemm.a.data = static_cast<const char *>(A);
  gemm.b.data = static_cast<const char *>(B);
  gemm.c.data = static_cast<const char *>(C);
  gemm.d.data = gemm.out = static_cast<char *>(D);
  // beta == 0 reads nothing of C, which may then be anything, null too.
  bool readsC = gemm.beta != 0.0f;
  // In place, each output overwrites the C it was computed from; with
  // another layout it would overwrite C that is still to be read.
  const Layout &cl = gemm.c.layout, &dl = gemm.d.layout;
  if (readsC && C && C == D && (cl.ld != dl.ld || cl.stride != dl.stride)) {
    diag("%s: C and D are the same memory with different layouts (ld %lld "
         "and %lld, strided batch offsets %lld and %lld); an in-place matmul "
         "needs one",
         call, (long long)cl.ld, (long long)dl.ld, (long long)cl.stride,
         (long long)dl.stride);
    return kInvalidValue;
  }
  static const char *const names[] = {"A", "B", "C", "D"};
  static const char *const footprints[] = {
      "matrix A (its footprint over all batch entries)",
      "matrix B (its footprint over all batch entries)",
      "matrix C (its footprint over all batch entries)",
      "matrix D (its footprint over all batch entries)"};
  const Operand *operands[] = {&gemm.a, &gemm.b, &gemm.c, &gemm.d};
  std::vector<DeviceRange> ranges;
  for (int i = 0; i < 4; ++i) {
    const Operand &o = *operands[i];
    if (i == 2 && !readsC)
      continue;
    size_t bytes;
    if (!o.footprint(bytes)) {
      diag("%s: matrix %s's footprint does not fit in memory", call, names[i]);
      return kInvalidValue;
    }
    if (bytes == 0)
      continue;
    if (!o.data) {
      diag("%s: matrix %s is null", call, names[i]);
      return kInvalidValue;
    }
    uintptr_t address = reinterpret_cast<uintptr_t>(o.data);
    size_t size = elementSize(o.layout.type);
    if (address % size || address % alignment[i]) {
      diag("%s: matrix %s at %p is not aligned to %s (%llu bytes)", call,
           names[i], static_cast<const void *>(o.data),
           address % size ? "its elements"
                          : "the preference's minimum alignment the algo was "
                            "chosen for",
           (unsigned long long)(address % size ? size : alignment[i]));
      return kInvalidValue;
    }
    ranges.push_back({o.data, bytes, footprints[i]});
  }
  if (gemm.hasBias) {
    // Read now, from the descriptor as it is at this call.
    const Bias &bias = gemm.bias;
    if (!bias.data) {
      diag("%s: the epilogue adds a bias but CUBLASLT_MATMUL_DESC_BIAS_POINTER "
           "is null",
           call);
      return kInvalidValue;
    }
    size_t bytes;
    if (!bias.footprint(gemm.n > 0 ? gemm.m : 0, gemm.batch, bytes)) {
      diag("%s: the bias vector's footprint does not fit in memory", call);
      return kInvalidValue;
    }
    uintptr_t address = reinterpret_cast<uintptr_t>(bias.data);
    size_t size = elementSize(bias.type);
    if (address % size) {
      diag("%s: the bias vector at %p is not aligned to its %s elements (%zu "
           "bytes)",
           call, static_cast<const void *>(bias.data), typeName(bias.type),
           size);
      return kInvalidValue;
    }
    if (bytes > 0)
      ranges.push_back({bias.data, bytes,
                        "bias vector (its footprint over all batch entries)"});
  }
  if (workspaceSize > 0)
    ranges.push_back({workspace, workspaceSize, "workspace"});
  return statusOf(
      submitHostWork(stream, call, std::move(ranges), [gemm] { gemm.run(); }));
}
