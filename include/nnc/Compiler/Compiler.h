//===- Compiler.h - compile nnc functions to executables --------*- C++ -*-===//
//
// The compile driver: specializes a function in the nnc dialect on concrete
// input shapes, lowers it through the shared pipeline to fused, planned
// kernels and through a target's pipeline (nnc/Target/Target.h) to the
// target's code, and packages code, plan and weights into an executable
// (runtime/Executable.h). A content-addressed cache on disk lets the same
// graph, shapes, weights, target and options skip all of that the second
// time.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_COMPILER_COMPILER_H
#define NNC_COMPILER_COMPILER_H

#include "nnc/Compiler/Precision.h"

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nnc {

/// What the autotuner does in a compile (docs/Autotuning.md).
enum class AutotuneMode {
  Off,     ///< The target's cost model picks every kernel.
  Cached,  ///< Measured choices from the tuning database; the rest default.
  On,      ///< As Cached, and measures the kernels the database lacks.
  Require, ///< As Cached, and fails naming the kernels it lacks.
};

struct CompileOptions {
  /// The target, by its registered name; empty: the default (the first
  /// registered).
  std::string target;
  /// LLVM optimization level, 0 to 3.
  int optLevel = 2;
  /// Parallel loops through OpenMP; off gives single-threaded kernels.
  bool parallel = true;
  /// Folder of the compile cache; empty turns the cache off.
  std::string cacheDir;
  /// Fusion (elementwise producers into consumers, sibling and horizontal
  /// fusion); off gives one kernel per op, for comparison.
  bool fuse = true;
  /// Memory planning (temporaries at offsets in one arena, reused as they
  /// die); off leaves each temporary to its own allocation, for comparison.
  bool planMemory = true;
  /// Kernels in the target's tuned libraries where its cost model picks
  /// them (the CPU: oneDNN convolutions); off: generated code only.
  bool libraryKernels = true;
  /// Load the program for graph replay (Program::enableGraphReplay: CUDA
  /// graphs, recorded on the first run and replayed after); the device must
  /// record graphs. A property of the loaded program, not of the
  /// executable: it takes no part in the compile cache's key.
  bool graphReplay = false;
  /// Also count the kernels and bytes moved of the same function compiled
  /// without fusion (the plan's unfused figures; costs the MLIR passes once
  /// more, no code generation).
  bool measureUnfused = false;
  /// Results that may be written into an argument's buffer, as (result
  /// index, argument index) pairs of the function (same type; the argument
  /// an input the caller lets runs overwrite, e.g. a parameter and its
  /// update). The compiler applies those it proves safe; the plan lists
  /// them (Plan::donations).
  std::vector<std::pair<unsigned, unsigned>> donations;
  /// Integer inputs to specialize on their values, by input index (the
  /// position among the arguments without a value): each is replaced by a
  /// constant of those values (row-major, one per element), so that shapes
  /// computed from it (`nnc.shape_input`) become static, and every run must
  /// pass the same values (Plan's specialized values).
  std::map<unsigned, std::vector<int64_t>> inputValues;
  /// Mixed precision: the function computes in f16 or bf16 where the op
  /// policy says (--nnc-mixed-precision), its inputs and results keep their
  /// types. Off by default.
  MixedPrecisionOptions precision;
  /// Kernel choices measured on this machine (AutotuneMode).
  AutotuneMode autotune = AutotuneMode::Cached;
  /// The tuning database: nothing: `tuning.nnctune` in the cache folder
  /// (none without a cache); "": none (`on` still measures, for this
  /// compile only).
  std::optional<std::string> tuningDatabase;
  /// Wall-clock seconds `on` may spend measuring in one compile; kernels
  /// left when it runs out keep the default and stay untuned.
  double tuningBudgetSeconds = 120;
  /// Threads the executable's runs will use (0: every core): the tuner
  /// measures with as many, and its database keys on it.
  unsigned threads = 0;
  /// A memory budget for a training function (docs/Rematerialization.md):
  /// its planned peak (inputs, outputs, weights, temporaries) at most
  /// `bytes`, or `fraction` of the peak planned without recomputation;
  /// forward values are recomputed in backward to fit (--nnc-remat-budget),
  /// and the compile fails (InvalidInput) when no choice fits.
  struct MemoryBudget {
    int64_t bytes = 0;
    double fraction = 0;
  };
  std::optional<MemoryBudget> memoryBudget;
};

/// What a memory budget made of a compile: planned peaks (the runtime's
/// figure: inputs, outputs, weights, temporaries) and what was recomputed.
struct RematReport {
  int64_t budgetBytes = 0;
  int64_t peakBefore = 0, peakAfter = 0;
  /// The arena as --nnc-remat-budget predicted it, and as planned.
  int64_t predictedArena = 0, plannedArena = 0;
  int64_t flops = 0, extraFlops = 0;
  /// "op 'name' type bytes" of each saved forward value.
  std::vector<std::string> recomputed, kept;
};

/// One kernel with a choice of candidates, and what the autotuner did.
struct TunedKernel {
  /// What it computes: "conv 8x64x56x56 * 64x64x3x3 stride 1 pad 1".
  std::string kernel;
  /// The tuning database's key of the kernel.
  std::string key;
  /// The candidate compiled, and the cost model's (equal when untuned).
  std::string choice;
  std::string defaultChoice;
  /// Median milliseconds of the choice and of the default, when measured
  /// (now or in the database); negative otherwise.
  double choiceMs = -1;
  double defaultMs = -1;
  /// Every candidate measured, with its median milliseconds.
  std::vector<std::pair<std::string, double>> times;
  enum class Source { Default, Database, Measured } source = Source::Default;
  /// What the check of the whole program (TuningCheck) made of a choice
  /// measured in this compile that differs from the default: kept, or
  /// turned down (the default compiled instead, `choice` says so).
  enum class Check { None, Kept, TurnedDown } check = Check::None;
};

/// The check of the whole program after `on` measured its kernels alone:
/// the function compiled with the new choices and with the defaults, both
/// timed on the same synthetic inputs taking turns (docs/Autotuning.md).
struct TuningCheck {
  /// Kernels (database keys) measured in this compile whose choice differs
  /// from the default, and how many of them the check kept.
  unsigned changes = 0;
  unsigned kept = 0;
  /// Sets of choices compiled and timed against the defaults (the first
  /// is all of them).
  unsigned variants = 0;
  /// Median milliseconds of one run of the program: with the defaults and
  /// with the choices kept (with all of them when none was kept); negative
  /// when not measured.
  double defaultMs = -1;
  double tunedMs = -1;
  /// Why the check could not run (then every choice is kept unchecked, as
  /// measured alone); empty when it ran.
  std::string skipped;
};

/// Why a compile failed; the diagnostics say what and where.
enum class CompileFailure {
  None,
  InvalidInput, ///< Wrong shapes for the inputs, a malformed function.
  Unsupported,  ///< An op or type the backend cannot compile yet.
  Internal,     ///< Code generation or linking failed.
};

struct CompileResult {
  /// The executable's bytes (docs/Executable.md).
  std::vector<uint8_t> executable;
  /// Wall time spent compiling; the time to read the cache entry on a hit.
  double seconds = 0;
  bool fromCache = false;
  /// The cache file used or written; empty without a cache.
  std::string cachePath;
  CompileFailure failure = CompileFailure::None;
  /// The kernels with candidates, in program order, and the seconds this
  /// compile spent measuring them (0 unless the autotuner measured).
  std::vector<TunedKernel> tuning;
  double tuningSeconds = 0;
  /// The check of the whole program, when `on` measured choices that
  /// differ from the defaults (its seconds are in tuningSeconds).
  std::optional<TuningCheck> tuningCheck;
  /// What mixed precision did, when CompileOptions::precision asked for it.
  std::optional<MixedPrecisionReport> mixedPrecision;
  /// What the memory budget did, when CompileOptions::memoryBudget set one.
  std::optional<RematReport> remat;
};

/// Compiles function `functionName` of `module` (left unchanged) for
/// `options.target`. Arguments carrying `nnc.value` become the executable's
/// weights; the others are its inputs and `inputShapes` holds one concrete
/// shape per input, in argument order (empty when all are static). Errors
/// are emitted as diagnostics on the module's context and `failure` says
/// which kind.
CompileResult compile(mlir::ModuleOp module, llvm::StringRef functionName,
                      llvm::ArrayRef<llvm::SmallVector<int64_t>> inputShapes,
                      const CompileOptions &options);

/// A compile's planned peak, found without the compile (planPeak).
struct PlannedPeak {
  /// As the executable compile() makes would report it (peak_memory_bytes:
  /// inputs and outputs not written in place, weights, temporaries).
  int64_t peak = 0;
  /// When asked: the smallest memory budget (CompileOptions::memoryBudget
  /// bytes) the compile meets by recomputation, as found (to within about
  /// 1 %), whatever budget the options set, and the planned peak under it
  /// (at most that), with the function's FLOPs and those it recomputes; 0
  /// when none is found below the peak without recomputation.
  int64_t smallestBudget = 0, budgetPeak = 0;
  int64_t flops = 0, extraFlops = 0;
  /// The compile would fail because the options' memory budget cannot be
  /// met (the result is InvalidInput).
  bool budgetMissed = false;
};

/// The planned peak of compile(module, functionName, inputShapes, options)
/// from its stages up to the memory plan: mixed precision and the memory
/// budget as `options` set them, kernel choices from the tuning database
/// only (nothing is measured), no cache and no code. With
/// `smallestByRecomputation` (for a training function, as
/// --nnc-remat-budget takes it), also the smallest budget and the peak
/// under it. Errors are diagnostics on the module's context; the result
/// says which kind (None on success).
CompileFailure planPeak(mlir::ModuleOp module, llvm::StringRef functionName,
                        llvm::ArrayRef<llvm::SmallVector<int64_t>> inputShapes,
                        const CompileOptions &options,
                        bool smallestByRecomputation, PlannedPeak &out);

/// With the environment variable NNC_DUMP_IR naming a folder, writes
/// `module` there as `<name>.mlir` (the compile driver: `<function>.input`,
/// `.kernels` and `.lowered`; the trainer: `<model>.training`), and compiles
/// rather than reading the cache. Does nothing otherwise; a folder that
/// cannot be written is skipped silently (it is a debugging aid).
void dumpIR(mlir::ModuleOp module, llvm::StringRef name);

/// The cache folder a client gets by default: $NNC_CACHE_DIR, else
/// $XDG_CACHE_HOME/nnc, else $HOME/.cache/nnc; empty when none is set.
std::string defaultCacheDir();

/// Appends the bytes of `value` in row-major order, one element per dtype
/// size (i1 as one byte), expanding splats; fails for a value whose data
/// cannot be read (e.g. a released resource blob).
mlir::LogicalResult appendElementBytes(mlir::ElementsAttr value,
                                       std::vector<uint8_t> &out);

/// "nnc <version> (LLVM <version>)": goes into every plan and cache key.
const char *compilerVersionString();

} // namespace nnc

#endif // NNC_COMPILER_COMPILER_H
