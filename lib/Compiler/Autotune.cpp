//===- Autotune.cpp - the compile driver's autotuning stage ---------------===//
//
// For each op the target offers several kernels for: its key (the op alone
// as a function, printed generically, with the compiler, the target's
// fingerprint, the threads and the code options), the database's entry for
// that key, and in `on` mode a measurement of every candidate the
// conversion accepts: the op compiled alone with the candidate forced, run
// on synthetic inputs of its real shapes, warm-up then timed repetitions,
// the median kept. docs/Autotuning.md states the rule that picks.
//
//===----------------------------------------------------------------------===//

#include "Autotune.h"

#include "nnc/Compiler/CompileAndLoad.h"
#include "nnc/Conversion/Passes.h"
#include "nnc/NNCDialect.h"
#include "nnc/runtime/Device.h"
#include "nnc/runtime/Program.h"
#include "nnc/runtime/Sha256.h"
#include "nnc/runtime/TuningDatabase.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <thread>

using namespace mlir;
namespace rt = nnc::runtime;

namespace {

using Clock = std::chrono::steady_clock;

/// The name the database and reports give the op without a kernel choice
/// (the conversion's own rules decide).
constexpr const char *kDefaultName = "default";

/// A candidate replaces the default only when its median is at least this
/// much faster than the default's median.
constexpr double kWinMargin = 0.05;
/// Timed repetitions per candidate: at least kMinRepetitions (when the
/// budget allows), then more while they fit kCandidateSeconds, up to
/// kMaxRepetitions.
constexpr int kMinRepetitions = 5;
constexpr int kMaxRepetitions = 25;
constexpr double kCandidateSeconds = 0.5;
/// A candidate whose warm-up or first timed run takes longer than this
/// many times the best median so far cannot win and is not timed further.
constexpr double kHopeless = 2.0;

/// What one op of the function has to choose from.
struct Site {
  Operation *op;
  std::string kernel;
  std::string key;
  std::vector<std::string> candidates;
  std::string defaultChoice;
};

std::string shapeText(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return "?";
  std::string text;
  for (auto [i, d] : llvm::enumerate(shaped.getShape()))
    text += (i ? "x" : "") +
            (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
  if (text.empty())
    text = "scalar";
  std::string element;
  llvm::raw_string_ostream os(element);
  shaped.getElementType().print(os);
  return text + " " + element;
}

/// "conv 8x64x56x56 f32, 64x64x3x3 f32 -> 8x64x56x56 f32 strides [1, 1] ...":
/// one line of printable text.
std::string describeKernel(Operation *op) {
  std::string text = op->getName().stripDialect().str();
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    text += (i ? ", " : " ") + shapeText(operand.getType());
  text += " ->";
  for (Type type : op->getResultTypes())
    text += " " + shapeText(type);
  for (NamedAttribute attr : op->getAttrs()) {
    if (attr.getName() == nnc::NNCDialect::getKernelChoiceAttrName())
      continue;
    text += " " + attr.getName().str() + " ";
    if (auto array = dyn_cast<DenseI64ArrayAttr>(attr.getValue())) {
      text += "[" +
              llvm::join(
                  llvm::map_range(array.asArrayRef(),
                                  [](int64_t v) { return std::to_string(v); }),
                  ", ") +
              "]";
    } else if (auto boolean = dyn_cast<BoolAttr>(attr.getValue())) {
      text += boolean.getValue() ? "true" : "false";
    } else if (auto integer = dyn_cast<IntegerAttr>(attr.getValue())) {
      text += std::to_string(integer.getInt());
    } else if (auto number = dyn_cast<FloatAttr>(attr.getValue())) {
      llvm::raw_string_ostream(text)
          << llvm::format("%g", number.getValueAsDouble());
    } else {
      llvm::raw_string_ostream os(text);
      attr.getValue().print(os);
    }
  }
  for (char &ch : text)
    if (ch < 0x20 || ch > 0x7e)
      ch = ' ';
  return text;
}

/// A module with one function @kernel computing a copy of `op` on
/// arguments of its operands' types, with `choice` forced (none for
/// "default").
OwningOpRef<ModuleOp> kernelModule(Operation *op, StringRef choice) {
  MLIRContext *ctx = op->getContext();
  Location loc = UnknownLoc::get(ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder b = OpBuilder::atBlockBegin(module->getBody());
  auto type =
      FunctionType::get(ctx, op->getOperandTypes(), op->getResultTypes());
  auto func = func::FuncOp::create(b, loc, "kernel", type);
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  IRMapping mapping;
  for (auto [operand, arg] :
       llvm::zip(op->getOperands(), entry->getArguments()))
    mapping.map(operand, arg);
  Operation *copy = b.clone(*op, mapping);
  copy->setLoc(loc);
  StringRef name = nnc::NNCDialect::getKernelChoiceAttrName();
  copy->removeAttr(name);
  if (!choice.empty() && choice != kDefaultName)
    copy->setAttr(name, b.getStringAttr(choice));
  func::ReturnOp::create(b, loc, copy->getResults());
  return module;
}

unsigned effectiveThreads(const nnc::CompileOptions &options) {
  if (options.threads)
    return options.threads;
  unsigned cores = std::thread::hardware_concurrency();
  return cores ? cores : 1;
}

/// What every key of one compile starts with: the compiler, the target and
/// its fingerprint, the threads and the code options.
std::string keyPrefix(const nnc::Target &target,
                      const nnc::CompileOptions &options) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "nnc tuning key 1\n"
     << nnc::compilerVersionString() << '\n'
     << target.name() << '\n'
     << target.fingerprint() << '\n'
     << "threads " << effectiveThreads(options) << " O" << options.optLevel
     << (options.parallel ? " parallel" : "")
     << (options.libraryKernels ? " library-kernels" : "") << '\n';
  return text;
}

/// The database key of `op`: `prefix` and the op alone as a function.
std::string kernelKey(Operation *op, const std::string &prefix) {
  std::string text = prefix;
  llvm::raw_string_ostream os(text);
  OwningOpRef<ModuleOp> module = kernelModule(op, "");
  module->print(os, OpPrintingFlags().printGenericOpForm());
  rt::Sha256 hasher;
  hasher.update(text.data(), text.size());
  return rt::toHex(hasher.finish());
}

/// Fills every float input with values in [-1, 1) from a fixed generator
/// (the time of a kernel does not depend on them, but NaNs or denormals
/// could), integers with zeros.
void fillSynthetic(rt::HostTensor &tensor, uint64_t seed) {
  uint64_t state = seed * 6364136223846793005ull + 1442695040888963407ull;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
  };
  int64_t n = tensor.numElements();
  switch (tensor.dtype()) {
  case rt::DType::F32:
    for (int64_t i = 0; i < n; ++i)
      tensor.dataAs<float>()[i] = static_cast<float>(next());
    break;
  case rt::DType::F64:
    for (int64_t i = 0; i < n; ++i)
      tensor.dataAs<double>()[i] = next();
    break;
  default:
    break; // zero-filled by HostTensor::create
  }
}

/// Compiles `site` with `choice` and times it; the median milliseconds, or
/// a negative value when it could not be measured (`why` says why). Stops
/// early when the candidate cannot beat `best` (ms; negative: none yet) or
/// the deadline has passed.
double measure(const Site &site, StringRef choice,
               const nnc::CompileOptions &options, double best,
               Clock::time_point deadline, std::string &why) {
  OwningOpRef<ModuleOp> module = kernelModule(site.op, choice);
  nnc::CompileOptions sub;
  sub.target = options.target;
  sub.optLevel = options.optLevel;
  sub.parallel = options.parallel;
  sub.fuse = options.fuse;
  sub.planMemory = options.planMemory;
  sub.libraryKernels = options.libraryKernels;
  sub.autotune = nnc::AutotuneMode::Off;
  sub.threads = options.threads;
  nnc::LoadedProgram loaded;
  rt::Status status = nnc::compileAndLoad(*module, "kernel", {}, sub,
                                          rt::getCpuDevice(), loaded);
  if (!status.isOk()) {
    why = status.message();
    return -1;
  }
  const rt::Program &program = *loaded.program;
  std::vector<rt::HostTensor> inputs(program.inputs().size());
  std::vector<rt::TensorRef> refs;
  for (auto [i, index] : llvm::enumerate(program.inputs())) {
    const rt::PlanValue &value = program.plan().values[index];
    status = rt::HostTensor::create(value.dtype, value.shape, inputs[i]);
    if (!status.isOk()) {
      why = status.message();
      return -1;
    }
    fillSynthetic(inputs[i], i + 1);
    refs.push_back({value.dtype, inputs[i].shape().data(),
                    inputs[i].shape().size(), inputs[i].data(),
                    inputs[i].sizeInBytes()});
  }
  std::vector<rt::HostTensor> outputs;
  auto runOnce = [&](double &ms) {
    auto start = Clock::now();
    rt::Status s = program.run(refs, outputs, options.threads);
    ms =
        std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    return s;
  };
  // Two warm-up runs: the first builds what a library keeps (a oneDNN
  // primitive), pages in the arena and code.
  std::vector<double> times;
  for (int i = 0; i < 2 + kMaxRepetitions; ++i) {
    double ms = 0;
    status = runOnce(ms);
    if (!status.isOk()) {
      why = status.message();
      return -1;
    }
    bool warmUp = i < 2;
    if (!warmUp)
      times.push_back(ms);
    // Hopeless after the second warm-up or the first timed run: kept as
    // its time so far.
    if (best >= 0 && i >= 1 && ms > kHopeless * best) {
      times.assign(1, ms);
      break;
    }
    auto now = Clock::now();
    if (now >= deadline && !warmUp && times.size() < kMinRepetitions) {
      why = "the tuning budget ran out";
      return -1;
    }
    if (static_cast<int>(times.size()) >= kMinRepetitions) {
      double spent = 0;
      for (double t : times)
        spent += t;
      if (spent / 1000.0 >= kCandidateSeconds || now >= deadline)
        break;
    }
  }
  std::sort(times.begin(), times.end());
  size_t n = times.size();
  return n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
}

/// The entry for `site` from its measured candidates; the rule of
/// docs/Autotuning.md: the fastest median, unless it beats the default's
/// median by less than kWinMargin.
rt::TuningEntry
decide(const Site &site,
       const std::vector<std::pair<std::string, double>> &times) {
  rt::TuningEntry entry;
  entry.key = site.key;
  entry.kernel = site.kernel;
  entry.defaultChoice = site.defaultChoice;
  entry.times = times;
  double defaultMs = -1, bestMs = -1;
  std::string best;
  for (const auto &[choice, ms] : times) {
    if (choice == site.defaultChoice)
      defaultMs = ms;
    if (bestMs < 0 || ms < bestMs) {
      bestMs = ms;
      best = choice;
    }
  }
  entry.choice = best;
  if (defaultMs >= 0 && best != site.defaultChoice &&
      bestMs > defaultMs * (1.0 - kWinMargin))
    entry.choice = site.defaultChoice;
  return entry;
}

void fillFromEntry(nnc::TunedKernel &kernel, const rt::TuningEntry &entry) {
  kernel.choice = entry.choice;
  kernel.times = entry.times;
  for (const auto &[choice, ms] : entry.times) {
    if (choice == entry.choice)
      kernel.choiceMs = ms;
    if (choice == kernel.defaultChoice)
      kernel.defaultMs = ms;
  }
}

void warn(const std::string &message) {
  llvm::errs() << "nnc: warning: " << message << "\n";
}

} // namespace

std::string nnc::tuningDatabasePath(const CompileOptions &options) {
  if (options.tuningDatabase)
    return *options.tuningDatabase;
  if (options.cacheDir.empty())
    return "";
  llvm::SmallString<256> path(options.cacheDir);
  llvm::sys::path::append(path, runtime::kTuningDatabaseFile);
  return std::string(path);
}

LogicalResult nnc::autotuneKernels(func::FuncOp func, const Target &target,
                                   const TargetOptions &targetOptions,
                                   const CompileOptions &options,
                                   CompileResult &result) {
  if (options.autotune == AutotuneMode::Off)
    return success();
  auto start = Clock::now();
  StringRef attrName = NNCDialect::getKernelChoiceAttrName();

  std::string path = tuningDatabasePath(options);
  rt::TuningDatabase database;
  if (!path.empty()) {
    rt::Status status = rt::TuningDatabase::open(path, database);
    if (!status.isOk()) {
      warn(status.message() + "; compiling with the default kernels");
      database = rt::TuningDatabase();
    }
    for (const std::string &message : database.warnings())
      warn(message);
  }
  // In `cached` mode without entries there is nothing to look up (and no
  // candidate to ask the target for: a compile pays nothing).
  if (options.autotune == AutotuneMode::Cached && database.entries().empty())
    return success();

  // The ops with a choice to make; a choice already given is the user's.
  std::vector<Site> sites;
  func.walk([&](Operation *op) {
    if (op->hasAttr(attrName))
      return;
    KernelCandidates offered = target.kernelCandidates(op, targetOptions);
    if (offered.choices.empty())
      return;
    Site site;
    site.op = op;
    site.defaultChoice =
        offered.defaultChoice.empty() ? kDefaultName : offered.defaultChoice;
    if (offered.defaultChoice.empty())
      site.candidates.push_back(kDefaultName);
    for (const std::string &choice : offered.choices)
      if (!whyKernelChoiceDoesNotApply(op, choice))
        site.candidates.push_back(choice);
    if (site.candidates.size() < 2)
      return;
    sites.push_back(std::move(site));
  });
  if (sites.empty())
    return success();
  std::string prefix = keyPrefix(target, options);
  for (Site &site : sites) {
    site.kernel = describeKernel(site.op);
    site.key = kernelKey(site.op, prefix);
  }

  auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(options.tuningBudgetSeconds));
  bool canMeasure = target.deviceKind() == "cpu";
  std::map<std::string, rt::TuningEntry> measured;
  std::vector<std::string> missing;
  bool budgetWarned = false, notKeptWarned = false;
  for (Site &site : sites) {
    TunedKernel kernel;
    kernel.kernel = site.kernel;
    kernel.key = site.key;
    kernel.defaultChoice = site.defaultChoice;
    kernel.choice = site.defaultChoice;
    const rt::TuningEntry *entry = database.lookup(site.key);
    auto known = measured.find(site.key);
    if (known != measured.end())
      entry = &known->second;
    // An entry whose choice the conversion no longer takes is stale.
    if (entry && entry->choice != kDefaultName &&
        whyKernelChoiceDoesNotApply(site.op, entry->choice)) {
      warn("tuning database " + path + ": the entry for " + site.kernel +
           " chooses '" + entry->choice +
           "', which does not apply; entry ignored");
      entry = nullptr;
    }
    if (entry) {
      fillFromEntry(kernel, *entry);
      kernel.source = known != measured.end() ? TunedKernel::Source::Measured
                                              : TunedKernel::Source::Database;
    } else if (options.autotune == AutotuneMode::On && canMeasure &&
               Clock::now() < deadline) {
      auto tuneStart = Clock::now();
      std::vector<std::pair<std::string, double>> times;
      double best = -1;
      bool complete = true;
      for (const std::string &choice : site.candidates) {
        std::string why;
        double ms = measure(site, choice, options, best, deadline, why);
        if (ms < 0) {
          if (why == "the tuning budget ran out") {
            complete = false;
            break;
          }
          // A candidate that does not compile or run is not a candidate.
          warn("autotune: " + site.kernel + ": candidate '" + choice +
               "' failed: " + why);
          continue;
        }
        times.emplace_back(choice, ms);
        if (best < 0 || ms < best)
          best = ms;
      }
      result.tuningSeconds +=
          std::chrono::duration<double>(Clock::now() - tuneStart).count();
      bool hasDefault = llvm::any_of(
          times, [&](const auto &t) { return t.first == site.defaultChoice; });
      if (complete && hasDefault) {
        rt::TuningEntry decided = decide(site, times);
        fillFromEntry(kernel, decided);
        kernel.source = TunedKernel::Source::Measured;
        if (!path.empty() && !database.writeable()) {
          if (!notKeptWarned)
            warn("tuning database " + path +
                 " is not one this compiler writes; the measurements of "
                 "this compile are not kept");
          notKeptWarned = true;
        } else if (!path.empty()) {
          // The database is made with its folder (the cache's, at first).
          StringRef folder = llvm::sys::path::parent_path(path);
          if (!folder.empty())
            (void)llvm::sys::fs::create_directories(folder);
          std::vector<std::string> warnings;
          rt::Status status =
              rt::TuningDatabase::merge(path, {decided}, &warnings);
          for (const std::string &message : warnings)
            warn(message);
          if (!status.isOk())
            warn(status.message() + "; the measurement is not kept");
        }
        measured.emplace(site.key, std::move(decided));
      } else if (!complete && !budgetWarned) {
        budgetWarned = true;
        warn("autotune: the budget of " +
             std::to_string(options.tuningBudgetSeconds) +
             " s ran out; the kernels left keep their defaults");
      }
    }
    if (kernel.source == TunedKernel::Source::Default)
      missing.push_back(site.kernel);
    else if (kernel.choice != kDefaultName)
      site.op->setAttr(attrName,
                       StringAttr::get(func.getContext(), kernel.choice));
    result.tuning.push_back(std::move(kernel));
  }

  if (options.autotune == AutotuneMode::Require && !missing.empty()) {
    std::sort(missing.begin(), missing.end());
    missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
    InFlightDiagnostic diag =
        func.emitError()
        << "autotune=require: " << missing.size()
        << (missing.size() == 1 ? " kernel is" : " kernels are")
        << " not in the tuning database"
        << (path.empty() ? std::string(" (none: no cache folder)") : " " + path)
        << " for this machine and compiler; tune them with autotune=on";
    for (const std::string &kernel : missing)
      diag.attachNote() << "untuned: " << kernel;
    return failure();
  }
  if (options.autotune == AutotuneMode::On && !canMeasure)
    warn("autotune: target '" + target.name().str() +
         "' cannot be measured in this build; its kernels keep their "
         "defaults");
  return success();
}
