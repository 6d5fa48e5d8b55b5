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

#include "nnc/Analysis/CostModel.h"
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
#include <set>
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
/// The check of the whole program times the defaults and the choices
/// taking turns: at least kMinRepetitions runs of each after two warm-ups,
/// more while both sides' runs took less than this in total, up to
/// kMaxRepetitions.
constexpr double kProgramSeconds = 1.0;
/// Sets of choices the check tries at most: all of them, then the half
/// that saved the most when measured alone, and so on.
constexpr unsigned kMaxProgramVariants = 4;
/// The share of the tuning budget that measuring kernels may take; the
/// check of the whole program may use the rest (and whatever measuring
/// left).
constexpr double kMeasuringShare = 0.75;
/// How the order of measuring weighs a byte moved against a floating-point
/// operation (a CPU core does some 8 FLOPs in the time it streams a byte).
constexpr double kFlopsPerByte = 8.0;

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

/// The database key of `site`: `prefix`, the candidates the target offers
/// and its default (a new candidate or a new default makes older
/// measurements incomplete: they are tuned again), and the op alone as a
/// function.
std::string kernelKey(const Site &site, const std::string &prefix) {
  Operation *op = site.op;
  std::string text = prefix;
  llvm::raw_string_ostream os(text);
  os << "candidates";
  for (const std::string &candidate : site.candidates)
    os << ' ' << candidate;
  os << "; default " << site.defaultChoice << '\n';
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

/// What the tuner compiles what it measures with: the code options of
/// `options`, without the cache, tuning, mixed precision or memory budget
/// (the function measured has been through those stages already).
nnc::CompileOptions measuringOptions(const nnc::CompileOptions &options) {
  nnc::CompileOptions sub;
  sub.target = options.target;
  sub.optLevel = options.optLevel;
  sub.parallel = options.parallel;
  sub.fuse = options.fuse;
  sub.planMemory = options.planMemory;
  sub.libraryKernels = options.libraryKernels;
  sub.autotune = nnc::AutotuneMode::Off;
  sub.threads = options.threads;
  return sub;
}

/// A function compiled, loaded on the CPU and given synthetic inputs, to
/// be timed run by run.
class TimedProgram {
public:
  rt::Status load(ModuleOp module, StringRef name,
                  const nnc::CompileOptions &options) {
    threads = options.threads;
    NNC_RUNTIME_RETURN_IF_ERROR(nnc::compileAndLoad(
        module, name, {}, options, rt::getCpuDevice(), loaded));
    const rt::Program &program = *loaded.program;
    inputs.resize(program.inputs().size());
    for (auto [i, index] : llvm::enumerate(program.inputs())) {
      const rt::PlanValue &value = program.plan().values[index];
      NNC_RUNTIME_RETURN_IF_ERROR(
          rt::HostTensor::create(value.dtype, value.shape, inputs[i]));
      fillSynthetic(inputs[i], i + 1);
      refs.push_back({value.dtype, inputs[i].shape().data(),
                      inputs[i].shape().size(), inputs[i].data(),
                      inputs[i].sizeInBytes()});
    }
    return rt::Status::ok();
  }

  /// One run; `ms` its wall time.
  rt::Status run(double &ms) {
    auto start = Clock::now();
    rt::Status status = loaded.program->run(refs, outputs, threads);
    ms =
        std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    return status;
  }

private:
  nnc::LoadedProgram loaded;
  unsigned threads = 0;
  std::vector<rt::HostTensor> inputs, outputs;
  std::vector<rt::TensorRef> refs;
};

double median(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  size_t n = times.size();
  return n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
}

/// Compiles `site` with `choice` and times it; the median milliseconds, or
/// a negative value when it could not be measured (`why` says why). Stops
/// early when the candidate cannot beat `best` (ms; negative: none yet) or
/// the deadline has passed.
double measure(const Site &site, StringRef choice,
               const nnc::CompileOptions &options, double best,
               Clock::time_point deadline, std::string &why) {
  OwningOpRef<ModuleOp> module = kernelModule(site.op, choice);
  TimedProgram program;
  rt::Status status =
      program.load(*module, "kernel", measuringOptions(options));
  if (!status.isOk()) {
    why = status.message();
    return -1;
  }
  // Two warm-up runs: the first builds what a library keeps (a oneDNN
  // primitive), pages in the arena and code.
  std::vector<double> times;
  for (int i = 0; i < 2 + kMaxRepetitions; ++i) {
    double ms = 0;
    status = program.run(ms);
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
  return median(std::move(times));
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

/// The choice each database key compiles with; a key not here compiles
/// with the default.
using Choices = std::map<std::string, std::string>;

/// Gives every site its choice in `choices` (the attribute set, or removed
/// for the default).
void applyChoices(ArrayRef<Site> sites, const Choices &choices) {
  StringRef name = nnc::NNCDialect::getKernelChoiceAttrName();
  for (const Site &site : sites) {
    auto it = choices.find(site.key);
    if (it == choices.end() || it->second == kDefaultName)
      site.op->removeAttr(name);
    else
      site.op->setAttr(name, StringAttr::get(site.op->getContext(), it->second));
  }
}

/// A module with a copy of `func` whose sites compile with `choices`.
OwningOpRef<ModuleOp> programModule(func::FuncOp func, ArrayRef<Site> sites,
                                    const Choices &choices) {
  applyChoices(sites, choices);
  OwningOpRef<ModuleOp> module = ModuleOp::create(func.getLoc());
  OpBuilder b = OpBuilder::atBlockBegin(module->getBody());
  b.clone(*func.getOperation());
  return module;
}

/// Times `base` and `other` taking turns (which goes first alternates),
/// after two warm-up runs of each; their medians in `baseMs` and `otherMs`.
/// Stops early when `other` takes more than kHopeless times as long.
rt::Status timeAgainst(TimedProgram &base, TimedProgram &other, double &baseMs,
                       double &otherMs) {
  std::vector<double> baseTimes, otherTimes;
  double spent = 0;
  for (int i = 0; i < 2 + kMaxRepetitions; ++i) {
    double a = 0, b = 0;
    if (i % 2) {
      NNC_RUNTIME_RETURN_IF_ERROR(other.run(b));
      NNC_RUNTIME_RETURN_IF_ERROR(base.run(a));
    } else {
      NNC_RUNTIME_RETURN_IF_ERROR(base.run(a));
      NNC_RUNTIME_RETURN_IF_ERROR(other.run(b));
    }
    if (i >= 1 && b > kHopeless * a) {
      baseTimes.assign(1, a);
      otherTimes.assign(1, b);
      break;
    }
    if (i < 2)
      continue;
    baseTimes.push_back(a);
    otherTimes.push_back(b);
    spent += a + b;
    if (baseTimes.size() >= static_cast<size_t>(kMinRepetitions) &&
        spent / 1000.0 >= kProgramSeconds)
      break;
  }
  baseMs = median(std::move(baseTimes));
  otherMs = median(std::move(otherTimes));
  return rt::Status::ok();
}

/// One choice measured in this compile that differs from the default, and
/// what it saved measured alone (per use, times its uses).
struct Change {
  std::string key;
  std::string choice;
  double savedMs = 0;
};

/// The check of the whole program (docs/Autotuning.md): `func` compiled
/// with `base` (the choices not in question) and with `base` plus sets of
/// `changes`, run on synthetic inputs taking turns, as
/// nnc::decideProgramCheck says. Sorts `changes` by what they saved alone
/// (most first) and returns how many of them to keep; all of them, with
/// `check.skipped` saying why, when the program with the defaults does not
/// compile or run here.
size_t checkProgram(func::FuncOp func, ArrayRef<Site> sites,
                    const Choices &base, std::vector<Change> &changes,
                    const nnc::CompileOptions &options,
                    Clock::time_point deadline, nnc::TuningCheck &check) {
  llvm::sort(changes, [](const Change &a, const Change &b) {
    return a.savedMs != b.savedMs ? a.savedMs > b.savedMs : a.key < b.key;
  });
  check.changes = changes.size();
  nnc::CompileOptions sub = measuringOptions(options);
  sub.donations = options.donations;
  StringRef name = func.getSymName();
  TimedProgram defaults;
  rt::Status status =
      defaults.load(*programModule(func, sites, base), name, sub);
  double firstMs = 0;
  if (status.isOk())
    status = defaults.run(firstMs);
  if (!status.isOk()) {
    check.skipped =
        "the program with the default kernels did not compile or run on "
        "synthetic inputs: " +
        status.message();
    check.kept = changes.size();
    return changes.size();
  }
  return nnc::decideProgramCheck(
      changes.size(),
      [&](size_t count) {
        Choices variant = base;
        for (size_t i = 0; i < count; ++i)
          variant[changes[i].key] = changes[i].choice;
        nnc::VariantTiming timing;
        TimedProgram tuned;
        status = tuned.load(*programModule(func, sites, variant), name, sub);
        if (status.isOk())
          status =
              timeAgainst(defaults, tuned, timing.defaultMs, timing.tunedMs);
        // The defaults ran: a set of choices that does not compile or run
        // loses.
        if (!status.isOk())
          warn("autotune: the program with " + std::to_string(count) +
               " measured choices failed: " + status.message());
        timing.ok = status.isOk();
        return timing;
      },
      [&] { return Clock::now() < deadline; }, check);
}

} // namespace

size_t nnc::decideProgramCheck(
    size_t changes, llvm::function_ref<VariantTiming(size_t)> time,
    llvm::function_ref<bool()> mayGoOn, TuningCheck &check) {
  check.changes = changes;
  size_t count = changes;
  while (count) {
    VariantTiming timing = time(count);
    ++check.variants;
    bool wins =
        timing.ok && timing.tunedMs <= timing.defaultMs * (1.0 - kWinMargin);
    // The figures of the set kept, else of the first (all choices).
    if (timing.ok && (wins || check.variants == 1)) {
      check.defaultMs = timing.defaultMs;
      check.tunedMs = timing.tunedMs;
    }
    if (wins) {
      check.kept = count;
      return count;
    }
    if (count == 1 || check.variants >= kMaxProgramVariants || !mayGoOn())
      break;
    count /= 2;
  }
  check.kept = 0;
  return 0;
}

std::string nnc::tuningDatabasePath(const CompileOptions &options) {
  if (options.tuningDatabase)
    return *options.tuningDatabase;
  if (options.cacheDir.empty())
    return "";
  llvm::SmallString<256> path(options.cacheDir);
  llvm::sys::path::append(path, runtime::kTuningDatabaseFile);
  return std::string(path);
}

std::vector<size_t> nnc::measuringOrder(llvm::ArrayRef<std::string> keys,
                                        llvm::ArrayRef<double> costs) {
  std::map<std::string, double> total;
  for (auto [key, cost] : llvm::zip(keys, costs))
    total[key] += cost;
  std::vector<size_t> order(keys.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return total[keys[a]] > total[keys[b]];
  });
  return order;
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
    site.key = kernelKey(site, prefix);
  }

  auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(options.tuningBudgetSeconds));
  // Measuring kernels stops at kMeasuringShare of the budget, so that the
  // check of the whole program has the rest for more than its first set.
  auto measuringDeadline =
      start + std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(options.tuningBudgetSeconds *
                                                kMeasuringShare));
  bool canMeasure = target.deviceKind() == "cpu";
  // Choices measured in this compile, by key; kept in the database only
  // after the check of the whole program.
  std::map<std::string, rt::TuningEntry> measured;
  std::vector<TunedKernel> kernels;
  bool budgetWarned = false;
  auto warnBudget = [&] {
    if (budgetWarned)
      return;
    budgetWarned = true;
    std::string text;
    llvm::raw_string_ostream(text)
        << "autotune: measuring took its share ("
        << static_cast<int>(kMeasuringShare * 100)
        << " %) of the tuning budget of "
        << llvm::format("%g", options.tuningBudgetSeconds)
        << " s; the kernels left keep their defaults, untuned";
    warn(text);
  };
  // Measured by their cost, most first: the budget goes to the kernels
  // that take most of the time; the report keeps program order.
  std::vector<std::string> keys;
  std::vector<double> costs;
  for (const Site &site : sites) {
    OpCost cost = costOf(site.op);
    keys.push_back(site.key);
    costs.push_back(static_cast<double>(cost.flops) +
                    kFlopsPerByte * static_cast<double>(cost.bytesRead +
                                                        cost.bytesWritten));
  }
  kernels.resize(sites.size());
  for (size_t index : measuringOrder(keys, costs)) {
    Site &site = sites[index];
    TunedKernel &kernel = kernels[index];
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
               Clock::now() >= measuringDeadline) {
      warnBudget();
    } else if (options.autotune == AutotuneMode::On && canMeasure) {
      auto tuneStart = Clock::now();
      std::vector<std::pair<std::string, double>> times;
      double best = -1;
      bool complete = true;
      // The target's follow-ups join the candidates once every one of
      // them is measured (they are built from their times).
      std::vector<std::string> candidates = site.candidates;
      bool followedUp = false;
      for (size_t c = 0;; ++c) {
        if (c == candidates.size() && !followedUp) {
          followedUp = true;
          for (std::string &next :
               target.followUpCandidates(site.op, times, targetOptions))
            if (!llvm::is_contained(candidates, next) &&
                !whyKernelChoiceDoesNotApply(site.op, next))
              candidates.push_back(std::move(next));
        }
        if (c == candidates.size())
          break;
        const std::string choice = candidates[c];
        std::string why;
        double ms =
            measure(site, choice, options, best, measuringDeadline, why);
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
        measured.emplace(site.key, std::move(decided));
      } else if (!complete) {
        warnBudget();
      }
    }
  }

  // The choices from the database are not in question; the new ones that
  // differ from the default must make the whole program faster.
  Choices choices;
  std::map<std::string, Change> changes;
  for (auto [site, kernel] : llvm::zip(sites, kernels)) {
    if (kernel.choice == kernel.defaultChoice)
      continue;
    if (kernel.source == TunedKernel::Source::Database) {
      choices[site.key] = kernel.choice;
      continue;
    }
    Change &change = changes[site.key];
    change.key = site.key;
    change.choice = kernel.choice;
    change.savedMs += kernel.defaultMs - kernel.choiceMs;
  }
  std::set<std::string> turnedDown;
  if (!changes.empty()) {
    auto checkStart = Clock::now();
    std::vector<Change> ordered;
    for (auto &[key, change] : changes)
      ordered.push_back(std::move(change));
    TuningCheck &check = result.tuningCheck.emplace();
    size_t kept = checkProgram(func, sites, choices, ordered, options,
                               deadline, check);
    for (size_t i = 0; i < ordered.size(); ++i) {
      if (i < kept) {
        choices[ordered[i].key] = ordered[i].choice;
        continue;
      }
      turnedDown.insert(ordered[i].key);
      rt::TuningEntry &entry = measured[ordered[i].key];
      entry.choice = entry.defaultChoice;
    }
    if (!check.skipped.empty())
      warn("autotune: the whole program was not checked, the choices "
           "measured alone are kept: " +
           check.skipped);
    result.tuningSeconds +=
        std::chrono::duration<double>(Clock::now() - checkStart).count();
  }
  applyChoices(sites, choices);

  // What was measured goes into the database in one write, in program
  // order.
  if (!measured.empty() && !path.empty()) {
    std::vector<rt::TuningEntry> entries;
    std::set<std::string> written;
    for (const Site &site : sites)
      if (measured.count(site.key) && written.insert(site.key).second)
        entries.push_back(measured[site.key]);
    if (!database.writeable()) {
      warn("tuning database " + path +
           " is not one this compiler writes; the measurements of this "
           "compile are not kept");
    } else {
      // The database is made with its folder (the cache's, at first).
      StringRef folder = llvm::sys::path::parent_path(path);
      if (!folder.empty())
        (void)llvm::sys::fs::create_directories(folder);
      std::vector<std::string> warnings;
      rt::Status status = rt::TuningDatabase::merge(path, entries, &warnings);
      for (const std::string &message : warnings)
        warn(message);
      if (!status.isOk())
        warn(status.message() + "; the measurements are not kept");
    }
  }

  std::vector<std::string> missing;
  for (auto [site, kernel] : llvm::zip(sites, kernels)) {
    if (kernel.source == TunedKernel::Source::Measured) {
      auto it = measured.find(site.key);
      if (turnedDown.count(site.key)) {
        fillFromEntry(kernel, it->second);
        kernel.check = TunedKernel::Check::TurnedDown;
      } else if (changes.count(site.key) &&
                 result.tuningCheck->skipped.empty()) {
        kernel.check = TunedKernel::Check::Kept;
      }
    }
    if (kernel.source == TunedKernel::Source::Default)
      missing.push_back(site.kernel);
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
