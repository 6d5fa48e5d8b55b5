//===- Program.h - a loaded executable, ready to run ------------*- C++ -*-===//
//
// A Program is an executable loaded onto a device: its plan parsed and
// checked, its code loaded, every kernel of the plan resolved and its
// weights in place. Running binds the caller's inputs, allocates the
// outputs, launches the plan's steps in order and returns the outputs.
// Runs may overlap: a run keeps its state on its own stack and heap.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_PROGRAM_H
#define NNC_RUNTIME_PROGRAM_H

#include "nnc/runtime/Device.h"
#include "nnc/runtime/Executable.h"
#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/Plan.h"

#include <memory>
#include <string>
#include <vector>

namespace nnc::runtime {

/// A tensor the caller owns, seen by a run.
struct TensorRef {
  DType dtype = DType::F32;
  const int64_t *dims = nullptr;
  size_t rank = 0;
  const void *data = nullptr;
  size_t byteSize = 0;
};

class Program {
public:
  /// The target string of executables for this machine's CPU, e.g.
  /// "x86_64-unknown-linux-gnu".
  static const char *hostCpuTarget();

  /// Loads `executable` (taken over) onto `device`: checks the target, parses
  /// the plan against the weights section, loads the code, resolves every
  /// kernel. `source` names the executable in errors.
  static Status load(ExecutableReader executable, Device &device,
                     const std::string &source, std::unique_ptr<Program> &out);

  const Plan &plan() const { return plan_; }
  const ExecutableReader &executable() const { return executable_; }
  /// Indices into plan().values of the inputs and outputs, in order.
  const std::vector<uint32_t> &inputs() const { return inputs_; }
  const std::vector<uint32_t> &outputs() const { return outputs_; }
  uint64_t weightBytes() const { return weightBytes_; }
  uint64_t codeBytes() const { return codeBytes_; }

  /// Runs the plan on `inputs` (one per input, in order, with exactly its
  /// dtype and shape) and fills `outputs` with new tensors. `threads` caps
  /// the threads kernels use (0: all cores).
  Status run(const std::vector<TensorRef> &inputs,
             std::vector<HostTensor> &outputs, uint32_t threads = 0) const;

  /// What the profiler calls this program's kernels: "<label>/<kernel>",
  /// with `detail` (e.g. the ops they compute) in the trace.
  void setLabel(std::string label, std::string detail = "") {
    label_ = std::move(label);
    detail_ = std::move(detail);
  }

private:
  Program() = default;

  ExecutableReader executable_;
  Plan plan_;
  Device *device_ = nullptr;
  std::unique_ptr<DeviceModule> module_;
  std::vector<Kernel> kernels_;       // one per plan step
  std::vector<const void *> weights_; // per plan value; null if not a weight
  std::vector<uint32_t> inputs_;
  std::vector<uint32_t> outputs_;
  uint64_t weightBytes_ = 0;
  uint64_t codeBytes_ = 0;
  std::string source_;
  std::string label_;
  std::string detail_;
};

} // namespace nnc::runtime

#endif // NNC_RUNTIME_PROGRAM_H
