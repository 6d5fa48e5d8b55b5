//===- nnc-conformance.cpp - the ONNX backend test data through nnc -------===//
//
// Runs the ONNX backend tests (each a folder with model.onnx and
// test_data_set_*/{input,output}_N.pb) through import, compilation and runs,
// comparing every output at ONNX's tolerances, and prints per suite
// "N passed, N failed, N skipped" with the reason of every skip and the worst
// mismatch of every failure. Each test runs in a forked child, so a crash or
// a hang is that test's failure, never the runner's. A client of the public
// C API (include/nnc-c/nnc.h) and of nothing else in nnc.
//
//===----------------------------------------------------------------------===//

#include "nnc-c/nnc.h"

#include "../common/CAPIHelpers.h"
#include "../common/CompilerHelpers.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace nnc::tools;

namespace {

const char *kUsage = R"(usage: nnc-conformance [options]

Runs the ONNX backend test data through nnc: import, compile, run every
test_data_set, compare every output (rtol 1e-3, atol 1e-7; bool and
integers exactly).

options:
  --data DIR            the folder holding the suites
                        (default /usr/share/libonnx-testdata/data)
  --suite NAME          a suite to run; repeatable (default: node,
                        pytorch-converted, pytorch-operator, simple)
  -j N                  tests run in parallel (default 2)
  --timeout S           seconds a test may take (default 60)
  --filter REGEX        only tests whose "suite/test" name matches
  --expected FILE       tests that must pass ("suite/test" per line, #
                        comments); exit 1 listing any that does not
  --write-expected FILE write the tests that passed there
  --cache-dir DIR       the compile cache ("" turns it off)
  --target T            compile for target T (default: the host CPU);
                        with cuda, the runs need a GPU or the test-only
                        emulated driver (docs/CUDABackend.md)
  --verbose             print every test, and let tests write to stderr
  --help                this text

Exit status: 0, or 1 when an --expected test did not pass or on an error,
2 for a malformed command line.
)";

constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-7;

struct Options {
  std::string data = "/usr/share/libonnx-testdata/data";
  std::vector<std::string> suites;
  long jobs = 2;
  long timeout = 60;
  std::string filter;
  bool hasFilter = false;
  std::string expected;
  std::string writeExpected;
  bool hasCacheDir = false;
  std::string cacheDir;
  std::string target;
  bool verbose = false;
};

enum class Outcome { Pass, Fail, Skip };

struct Result {
  Outcome outcome = Outcome::Fail;
  std::string reason;
};

struct Test {
  std::string suite;
  std::string name;
  std::string dir;
  std::string id() const { return suite + "/" + name; }
};

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

bool isDirectory(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool isFile(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<std::string> listDirectory(const std::string &path) {
  std::vector<std::string> names;
  if (DIR *dir = ::opendir(path.c_str())) {
    while (struct dirent *entry = ::readdir(dir)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..")
        names.push_back(name);
    }
    ::closedir(dir);
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// `<dir>/<prefix><k>.pb` for k = 0, 1, ... while they exist.
std::vector<std::string> numberedFiles(const std::string &dir,
                                       const std::string &prefix) {
  std::vector<std::string> files;
  for (int k = 0;; ++k) {
    std::string path = dir + "/" + prefix + std::to_string(k) + ".pb";
    if (!isFile(path))
      break;
    files.push_back(path);
  }
  return files;
}

/// test_data_set_0, test_data_set_1, ... in numeric order.
std::vector<std::string> dataSets(const std::string &testDir) {
  std::vector<std::pair<long, std::string>> sets;
  for (const std::string &name : listDirectory(testDir)) {
    const std::string prefix = "test_data_set_";
    if (name.rfind(prefix, 0) != 0 || !isDirectory(testDir + "/" + name))
      continue;
    sets.push_back({std::strtol(name.c_str() + prefix.size(), nullptr, 10),
                    testDir + "/" + name});
  }
  std::sort(sets.begin(), sets.end());
  std::vector<std::string> dirs;
  for (auto &set : sets)
    dirs.push_back(set.second);
  return dirs;
}

/// The first line of `text`, at most `limit` characters.
std::string firstLine(const std::string &text, size_t limit = 300) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() > limit)
    line = line.substr(0, limit) + "...";
  return line;
}

/// Drops what every message of a test repeats: the C API function's name
/// and the model's path, leaving what the importer or compiler said.
std::string withoutPath(std::string message, const std::string &modelPath) {
  for (const char *fn : {"nnc_model_import_onnx_file: ", "nnc_model_compile: "})
    if (message.rfind(fn, 0) == 0)
      message.erase(0, std::strlen(fn));
  for (const std::string &prefix :
       {"cannot import '" + modelPath + "': ", modelPath + ": "})
    for (size_t at; (at = message.find(prefix)) != std::string::npos;)
      message.erase(at, prefix.size());
  return message;
}

//===----------------------------------------------------------------------===//
// One test (in the child)
//===----------------------------------------------------------------------===//

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

/// Reads `files` as TensorProtos. On an unsupported one, fills `result`
/// with a skip and returns false.
bool readTensors(const std::vector<std::string> &files,
                 std::vector<NamedTensor> &out, Result &result) {
  for (const std::string &file : files) {
    nnc_tensor_t *raw = nullptr;
    char *name = nullptr;
    if (nnc_status_t status = nnc_tensor_read_onnx(file.c_str(), &raw, &name)) {
      bool unsupported = nnc_status_code(status) == NNC_STATUS_UNIMPLEMENTED;
      std::string message = takeMessage(status);
      result = {unsupported ? Outcome::Skip : Outcome::Fail,
                std::string(unsupported ? "test data unsupported: "
                                        : "cannot read test data: ") +
                    firstLine(message)};
      return false;
    }
    out.push_back({name, Tensor(raw)});
    nnc_string_destroy(name);
  }
  return true;
}

std::string formatValue(nnc_tensor_t *tensor, int64_t index) {
  return formatElement(tensor, index);
}

/// Compares one output; returns "" when it matches, else its worst mismatch.
std::string compare(const std::string &name, nnc_tensor_t *got,
                    nnc_tensor_t *expected) {
  if (nnc_tensor_dtype(got) != nnc_tensor_dtype(expected) ||
      nnc_tensor_rank(got) != nnc_tensor_rank(expected) ||
      !std::equal(nnc_tensor_dims(got),
                  nnc_tensor_dims(got) + nnc_tensor_rank(got),
                  nnc_tensor_dims(expected)))
    return "output '" + name + "' is " + describe(got) + ", expected " +
           describe(expected);
  int64_t count = elementCount(got);
  nnc_dtype_t dtype = nnc_tensor_dtype(got);
  int64_t worst = -1, mismatches = 0;
  double worstExcess = 0.0;
  for (int64_t i = 0; i < count; ++i) {
    if (isFloat(dtype)) {
      double g = floatAt(got, i), e = floatAt(expected, i);
      if (std::isnan(e) && std::isnan(g))
        continue;
      if (g == e)
        continue;
      double allowed = kAtol + kRtol * std::fabs(e);
      double diff = std::fabs(g - e);
      if (diff <= allowed)
        continue;
      ++mismatches;
      // NaN or infinity where the other is not ranks worst of all.
      double excess = std::isfinite(diff) ? diff / allowed : HUGE_VAL;
      if (worst < 0 || excess > worstExcess) {
        worst = i;
        worstExcess = excess;
      }
    } else if (integerAt(got, i) != integerAt(expected, i)) {
      ++mismatches;
      if (worst < 0)
        worst = i;
    }
  }
  if (worst < 0)
    return "";
  return "output '" + name + "' index " + std::to_string(worst) + ": got " +
         formatValue(got, worst) + ", expected " +
         formatValue(expected, worst) + " (" + std::to_string(mismatches) +
         " of " + std::to_string(count) + " elements differ)";
}

/// An integer tensor small enough to be a shape input.
bool isSmallInteger(const nnc_tensor_t *t) {
  nnc_dtype_t d = nnc_tensor_dtype(t);
  bool integer = d == NNC_DTYPE_I64 || d == NNC_DTYPE_I32 ||
                 d == NNC_DTYPE_I8 || d == NNC_DTYPE_U8 || d == NNC_DTYPE_BOOL;
  return integer && nnc_tensor_byte_size(t) <= 8 * 1024;
}

/// Whether an executable compiled for inputs `a` serves inputs `b`: the same
/// shapes, and the same values of the small integer inputs (the shape inputs
/// among them are specialized on their values).
bool sameSpecialization(const std::vector<NamedTensor> &a,
                        const std::vector<const nnc_tensor_t *> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    nnc_tensor_t *x = a[i].tensor.get();
    if (nnc_tensor_dtype(x) != nnc_tensor_dtype(b[i]) ||
        nnc_tensor_rank(x) != nnc_tensor_rank(b[i]) ||
        !std::equal(nnc_tensor_dims(x),
                    nnc_tensor_dims(x) + nnc_tensor_rank(b[i]),
                    nnc_tensor_dims(b[i])))
      return false;
    if (isSmallInteger(b[i]) &&
        std::memcmp(nnc_tensor_data(x),
                    nnc_tensor_data(const_cast<nnc_tensor_t *>(b[i])),
                    nnc_tensor_byte_size(x)) != 0)
      return false;
  }
  return true;
}

/// The runner's own tests make a test crash or hang through
/// NNC_CONFORMANCE_TEST_FAULT=crash:<substring> or hang:<substring> of its
/// "suite/test" name.
void injectFault(const Test &test) {
  const char *fault = std::getenv("NNC_CONFORMANCE_TEST_FAULT");
  if (!fault)
    return;
  std::string spec = fault;
  size_t colon = spec.find(':');
  if (colon == std::string::npos ||
      test.id().find(spec.substr(colon + 1)) == std::string::npos)
    return;
  std::string kind = spec.substr(0, colon);
  // SIGABRT rather than SIGSEGV: sanitizers turn the latter into exit(1).
  if (kind == "crash")
    std::abort();
  if (kind == "hang")
    for (;;)
      ::pause();
}

Result runTest(const Test &test, const Options &options) {
  injectFault(test);
  std::vector<std::string> sets = dataSets(test.dir);
  if (sets.empty())
    return {Outcome::Skip, "no test_data_set_* folder"};
  nnc_context_options_t contextOptions;
  nnc_context_options_initialize(&contextOptions);
  // One test per process, -j processes at once: stay on one thread.
  contextOptions.enable_multithreading = 0;
  nnc_context_t *rawContext = nullptr;
  if (nnc_status_t status = nnc_context_create(&contextOptions, &rawContext))
    return {Outcome::Fail, firstLine(takeMessage(status))};
  Context context(rawContext);

  // Import as a user would, with no inputs bound: integer inputs that
  // shape the results are specialized on each data set's values below.
  std::string modelPath = test.dir + "/model.onnx";
  nnc_model_t *rawModel = nullptr;
  nnc_status_t status = nnc_model_import_onnx_file(
      context.get(), modelPath.c_str(), nullptr, &rawModel);
  if (status)
    return {Outcome::Skip,
            "import unsupported: " +
                firstLine(withoutPath(takeMessage(status), modelPath))};
  Model model(rawModel);

  // The executable's inputs are the model's graph inputs (parameters carry
  // their initializers' values), matched to the data sets' by name.
  std::vector<std::string> inputNames;
  for (size_t i = 0; i < nnc_model_input_count(model.get()); ++i) {
    const nnc_value_info_t *info = nullptr;
    if (nnc_status_t s = nnc_model_input_info(model.get(), i, &info))
      return {Outcome::Fail, firstLine(takeMessage(s))};
    if (info->kind == NNC_VALUE_INPUT)
      inputNames.push_back(info->name ? info->name : "");
  }

  nnc_compile_options_t compileOptions;
  nnc_compile_options_initialize(&compileOptions);
  compileOptions.num_threads = 1;
  if (options.hasCacheDir)
    compileOptions.cache_dir = options.cacheDir.c_str();
  if (!options.target.empty())
    compileOptions.target = options.target.c_str();

  Executable executable;
  std::vector<NamedTensor> compiledFor;
  for (const std::string &set : sets) {
    std::string setName = set.substr(set.rfind('/') + 1);
    std::vector<NamedTensor> inputs, expected;
    Result result;
    if (!readTensors(numberedFiles(set, "input_"), inputs, result) ||
        !readTensors(numberedFiles(set, "output_"), expected, result))
      return result;

    // Order the data set's inputs as the executable's.
    std::vector<const nnc_tensor_t *> ordered;
    for (size_t k = 0; k < inputNames.size(); ++k) {
      const nnc_tensor_t *found = nullptr;
      for (const NamedTensor &input : inputs)
        if (!inputNames[k].empty() && input.name == inputNames[k])
          found = input.tensor.get();
      // Unnamed test data follows the graph inputs' order.
      if (!found && k < inputs.size() && inputs[k].name.empty())
        found = inputs[k].tensor.get();
      if (!found)
        return {Outcome::Fail, setName + ": no input_N.pb for graph input '" +
                                   inputNames[k] + "'"};
      ordered.push_back(found);
    }

    if (!executable || !sameSpecialization(compiledFor, ordered)) {
      // Specialized on the shapes and on the values of the shape inputs.
      nnc_executable_t *raw = nullptr;
      if (nnc_status_t s =
              nnc_model_compile_inputs(model.get(), &compileOptions,
                                       ordered.size(), ordered.data(), &raw)) {
        bool unimplemented = nnc_status_code(s) == NNC_STATUS_UNIMPLEMENTED;
        std::string message = firstLine(withoutPath(takeMessage(s), modelPath));
        if (unimplemented)
          return {Outcome::Skip, "compile unimplemented: " + message};
        return {Outcome::Fail, "compile failed: " + message};
      }
      executable.reset(raw);
      compiledFor.clear();
      for (const nnc_tensor_t *tensor : ordered) {
        nnc_tensor_t *copy = nullptr;
        if (nnc_status_t s = nnc_tensor_create(nnc_tensor_dtype(tensor),
                                               nnc_tensor_rank(tensor),
                                               nnc_tensor_dims(tensor), &copy))
          return {Outcome::Fail, firstLine(takeMessage(s))};
        if (isSmallInteger(tensor))
          std::memcpy(nnc_tensor_data(copy),
                      nnc_tensor_data(const_cast<nnc_tensor_t *>(tensor)),
                      nnc_tensor_byte_size(tensor));
        compiledFor.push_back({"", Tensor(copy)});
      }
    }

    size_t outputCount = nnc_executable_output_count(executable.get());
    if (outputCount != expected.size())
      return {Outcome::Fail,
              setName + ": the model has " + std::to_string(outputCount) +
                  " outputs, the test data " + std::to_string(expected.size())};
    std::vector<nnc_tensor_t *> rawOutputs(outputCount, nullptr);
    if (nnc_status_t s =
            nnc_executable_run(executable.get(), ordered.size(), ordered.data(),
                               outputCount, rawOutputs.data()))
      return {Outcome::Fail,
              setName + ": run failed: " + firstLine(takeMessage(s))};
    std::vector<Tensor> outputs;
    for (nnc_tensor_t *tensor : rawOutputs)
      outputs.emplace_back(tensor);
    for (size_t k = 0; k < outputCount; ++k) {
      std::string name = expected[k].name.empty()
                             ? "output_" + std::to_string(k)
                             : expected[k].name;
      std::string mismatch =
          compare(name, outputs[k].get(), expected[k].tensor.get());
      if (!mismatch.empty())
        return {Outcome::Fail,
                (sets.size() > 1 ? setName + ": " : "") + mismatch};
    }
  }
  return {Outcome::Pass, ""};
}

//===----------------------------------------------------------------------===//
// The runner (in the parent)
//===----------------------------------------------------------------------===//

struct Child {
  pid_t pid = -1;
  int fd = -1;
  size_t test = 0;
  std::string output;
  std::chrono::steady_clock::time_point start;
  bool timedOut = false;
};

void writeAll(int fd, const std::string &text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return;
    done += static_cast<size_t>(n);
  }
}

/// Forks a child that runs `test` and writes "P", "F<reason>" or
/// "S<reason>" to the pipe.
bool startChild(const Test &test, size_t index, const Options &options,
                Child &child) {
  int fds[2];
  if (::pipe(fds) != 0)
    return false;
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return false;
  }
  if (pid == 0) {
    ::close(fds[0]);
    if (!options.verbose) {
      int null = ::open("/dev/null", O_WRONLY);
      if (null >= 0) {
        ::dup2(null, STDOUT_FILENO);
        ::dup2(null, STDERR_FILENO);
        ::close(null);
      }
    }
    Result result = runTest(test, options);
    char tag = result.outcome == Outcome::Pass   ? 'P'
               : result.outcome == Outcome::Skip ? 'S'
                                                 : 'F';
    writeAll(fds[1], std::string(1, tag) + result.reason);
    ::close(fds[1]);
    // Skip static destructors and atexit handlers of the parent's image.
    std::fflush(nullptr);
    ::_exit(0);
  }
  ::close(fds[1]);
  ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
  child.pid = pid;
  child.fd = fds[0];
  child.test = index;
  child.output.clear();
  child.start = std::chrono::steady_clock::now();
  child.timedOut = false;
  return true;
}

void drain(Child &child) {
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(child.fd, buffer, sizeof(buffer));
    if (n > 0) {
      if (child.output.size() < 65536)
        child.output.append(buffer, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    return;
  }
}

Result finishChild(Child &child, int waitStatus, long timeout) {
  drain(child);
  ::close(child.fd);
  if (child.timedOut)
    return {Outcome::Fail, "timed out after " + std::to_string(timeout) + " s"};
  if (WIFSIGNALED(waitStatus)) {
    int sig = WTERMSIG(waitStatus);
    const char *name = ::strsignal(sig);
    return {Outcome::Fail, "crashed: signal " + std::to_string(sig) + " (" +
                               (name ? name : "?") + ")"};
  }
  if (child.output.empty())
    return {Outcome::Fail,
            "exited with status " +
                std::to_string(WIFEXITED(waitStatus) ? WEXITSTATUS(waitStatus)
                                                     : -1) +
                " before reporting a result (under a sanitizer: a crash; "
                "--verbose shows its report)"};
  char tag = child.output[0];
  std::string reason = child.output.substr(1);
  if (tag == 'P')
    return {Outcome::Pass, ""};
  return {tag == 'S' ? Outcome::Skip : Outcome::Fail, reason};
}

std::vector<Result> runAll(const std::vector<Test> &tests,
                           const Options &options) {
  std::vector<Result> results(tests.size());
  std::vector<Child> running;
  size_t next = 0;
  while (next < tests.size() || !running.empty()) {
    while (next < tests.size() &&
           running.size() < static_cast<size_t>(options.jobs)) {
      Child child;
      if (!startChild(tests[next], next, options, child)) {
        results[next] = {Outcome::Fail,
                         std::string("cannot start: ") + std::strerror(errno)};
        ++next;
        continue;
      }
      running.push_back(child);
      ++next;
    }
    // Read what the children wrote (so none blocks on a full pipe) and
    // wait a little for one to finish.
    std::vector<pollfd> fds;
    for (Child &child : running)
      fds.push_back({child.fd, POLLIN, 0});
    ::poll(fds.data(), fds.size(), 50);
    auto now = std::chrono::steady_clock::now();
    for (size_t i = 0; i < running.size();) {
      Child &child = running[i];
      drain(child);
      int waitStatus = 0;
      pid_t done = ::waitpid(child.pid, &waitStatus, WNOHANG);
      if (done == child.pid) {
        results[child.test] = finishChild(child, waitStatus, options.timeout);
        if (options.verbose)
          std::fprintf(stderr, "%s %s\n",
                       results[child.test].outcome == Outcome::Pass   ? "PASS"
                       : results[child.test].outcome == Outcome::Skip ? "SKIP"
                                                                      : "FAIL",
                       tests[child.test].id().c_str());
        running.erase(running.begin() + static_cast<long>(i));
        continue;
      }
      if (!child.timedOut &&
          now - child.start > std::chrono::seconds(options.timeout)) {
        child.timedOut = true;
        ::kill(child.pid, SIGKILL);
      }
      ++i;
    }
  }
  return results;
}

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

int usageError(const std::string &message) {
  std::fprintf(stderr, "nnc-conformance: error: %s (see --help)\n",
               message.c_str());
  return 2;
}

bool readList(const std::string &path, std::vector<std::string> &out) {
  std::ifstream file(path);
  if (!file)
    return false;
  std::string line;
  while (std::getline(file, line)) {
    line = line.substr(0, line.find('#'));
    line.erase(0, line.find_first_not_of(" \t\r"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (!line.empty())
      out.push_back(line);
  }
  return true;
}

int runTool(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string name = arg, value;
    bool hasValue = false;
    if (size_t eq = arg.find('=');
        arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      hasValue = true;
    }
    if (name == "--help" || name == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (name == "--verbose") {
      options.verbose = true;
      continue;
    }
    static const std::set<std::string> valued = {
        "--data",     "--suite",          "-j",
        "--jobs",     "--timeout",        "--filter",
        "--expected", "--write-expected", "--cache-dir",
        "--target"};
    if (!valued.count(name)) {
      // -jN
      if (name.rfind("-j", 0) == 0 && name.size() > 2 && !hasValue) {
        value = name.substr(2);
        name = "-j";
      } else {
        return usageError("unknown option '" + name + "'");
      }
    } else if (!hasValue) {
      if (i + 1 >= argc)
        return usageError("option '" + name + "' needs a value");
      value = argv[++i];
    }
    if (name == "--data") {
      options.data = value;
    } else if (name == "--suite") {
      options.suites.push_back(value);
    } else if (name == "-j" || name == "--jobs") {
      if (!parseCount(value, options.jobs) || options.jobs < 1)
        return usageError("-j expects a positive number, got '" + value + "'");
    } else if (name == "--timeout") {
      if (!parseCount(value, options.timeout) || options.timeout < 1)
        return usageError("--timeout expects a positive number of seconds, "
                          "got '" +
                          value + "'");
    } else if (name == "--filter") {
      options.filter = value;
      options.hasFilter = true;
    } else if (name == "--expected") {
      options.expected = value;
    } else if (name == "--write-expected") {
      options.writeExpected = value;
    } else if (name == "--cache-dir") {
      options.hasCacheDir = true;
      options.cacheDir = value;
    } else if (name == "--target") {
      options.target = value;
    }
  }
  if (options.suites.empty())
    options.suites = {"node", "pytorch-converted", "pytorch-operator",
                      "simple"};

  std::regex filter;
  if (options.hasFilter) {
    try {
      filter = std::regex(options.filter, std::regex::ECMAScript);
    } catch (const std::regex_error &e) {
      return usageError("--filter '" + options.filter +
                        "' is not a valid regular expression: " + e.what());
    }
  }
  std::vector<std::string> expected;
  if (!options.expected.empty() && !readList(options.expected, expected)) {
    std::fprintf(stderr, "nnc-conformance: error: cannot read '%s': %s\n",
                 options.expected.c_str(), std::strerror(errno));
    return 1;
  }

  std::vector<Test> tests;
  for (const std::string &suite : options.suites) {
    std::string suiteDir = options.data + "/" + suite;
    if (!isDirectory(suiteDir)) {
      std::fprintf(stderr,
                   "nnc-conformance: error: no suite '%s' (no folder "
                   "'%s')\n",
                   suite.c_str(), suiteDir.c_str());
      return 1;
    }
    for (const std::string &name : listDirectory(suiteDir)) {
      Test test{suite, name, suiteDir + "/" + name};
      if (!isFile(test.dir + "/model.onnx"))
        continue;
      if (options.hasFilter && !std::regex_search(test.id(), filter))
        continue;
      tests.push_back(test);
    }
  }

  // The parent never touches MLIR, so forking it is safe; children must
  // not inherit buffered output.
  std::signal(SIGPIPE, SIG_IGN);
  std::vector<Result> results = runAll(tests, options);

  std::map<std::string, std::array<int, 3>> counts;
  for (const std::string &suite : options.suites)
    counts[suite] = {0, 0, 0};
  std::set<std::string> passed;
  for (size_t i = 0; i < tests.size(); ++i) {
    const Result &result = results[i];
    auto &count = counts[tests[i].suite];
    switch (result.outcome) {
    case Outcome::Pass:
      ++count[0];
      passed.insert(tests[i].id());
      break;
    case Outcome::Fail:
      ++count[1];
      std::printf("FAIL %s: %s\n", tests[i].id().c_str(),
                  result.reason.c_str());
      break;
    case Outcome::Skip:
      ++count[2];
      std::printf("SKIP %s: %s\n", tests[i].id().c_str(),
                  result.reason.c_str());
      break;
    }
  }
  for (const std::string &suite : options.suites) {
    const auto &count = counts[suite];
    std::printf("%s: %d passed, %d failed, %d skipped\n", suite.c_str(),
                count[0], count[1], count[2]);
  }
  std::fflush(stdout);

  if (!options.writeExpected.empty()) {
    std::ofstream out(options.writeExpected);
    out << "# Conformance tests that must pass (nnc-conformance "
           "--write-expected).\n";
    for (const std::string &id : passed)
      out << id << "\n";
    if (!out) {
      std::fprintf(stderr, "nnc-conformance: error: cannot write '%s'\n",
                   options.writeExpected.c_str());
      return 1;
    }
  }
  if (!expected.empty()) {
    std::set<std::string> known;
    for (const Test &test : tests)
      known.insert(test.id());
    std::vector<std::string> regressions;
    for (const std::string &id : expected) {
      // Tests the filter or the suites leave out are not judged.
      size_t slash = id.find('/');
      bool inScope = slash != std::string::npos &&
                     std::count(options.suites.begin(), options.suites.end(),
                                id.substr(0, slash)) &&
                     (!options.hasFilter || std::regex_search(id, filter));
      if (!inScope)
        continue;
      if (!known.count(id) || !passed.count(id))
        regressions.push_back(id);
    }
    if (!regressions.empty()) {
      std::printf("%zu expected-pass tests did not pass:\n",
                  regressions.size());
      for (const std::string &id : regressions)
        std::printf("  %s%s\n", id.c_str(),
                    known.count(id) ? "" : " (no such test)");
      return 1;
    }
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) { return runTool(argc, argv); }
