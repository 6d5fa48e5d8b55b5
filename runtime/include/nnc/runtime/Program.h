//===- Program.h - a loaded executable, ready to run ------------*- C++ -*-===//
//
// A Program is an executable loaded onto a device: its plan parsed and
// checked, its code loaded, every kernel of the plan resolved and its
// weights in place. Running binds the caller's inputs, the outputs (new, or
// the caller's to reuse) and a scratch block per scratch value, launches
// the plan's steps in order and returns the outputs.
// Runs may overlap: a run keeps its state on its own stack and heap, and
// takes its scratch blocks from a pool that hands each block to one run at a
// time (a block is allocated only when none is free, so sequential runs
// allocate no scratch memory after the first).
// On a device whose memory the host cannot reach (Device::hostAccessible
// false: CUDA), the weights are uploaded once at load into one device
// allocation, and every run takes device buffers for its inputs and outputs
// from the same kind of pool, copies the inputs in before the first step and
// the outputs out after the last; callers see host tensors either way.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_PROGRAM_H
#define NNC_RUNTIME_PROGRAM_H

#include "nnc/runtime/Device.h"
#include "nnc/runtime/Executable.h"
#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/Plan.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
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

  /// Loads `executable` (taken over) onto `device`: checks that the device
  /// runs its target (Device::runsTarget), parses the plan against the
  /// weights section, loads the code, resolves every kernel, and on a
  /// device the host cannot reach uploads the weights. `source` names the
  /// executable in errors.
  static Status load(ExecutableReader executable, Device &device,
                     const std::string &source, std::unique_ptr<Program> &out);
  ~Program();
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  const Plan &plan() const { return plan_; }
  const ExecutableReader &executable() const { return executable_; }
  /// Indices into plan().values of the inputs and outputs, in order.
  const std::vector<uint32_t> &inputs() const { return inputs_; }
  const std::vector<uint32_t> &outputs() const { return outputs_; }
  uint64_t weightBytes() const { return weightBytes_; }
  uint64_t codeBytes() const { return codeBytes_; }
  /// The sum of the scratch values' sizes (the bytes one run holds).
  uint64_t scratchBytes() const { return scratchBytes_; }
  /// The bytes one run holds at most, as the plan counts them: inputs and
  /// outputs not written into an input's buffer, weights, the scratch
  /// arena and what kernels allocate themselves.
  uint64_t plannedPeakBytes() const;
  /// Scratch blocks allocated so far (the pool's high-water mark, in
  /// blocks): one per scratch value after any number of sequential runs.
  /// Device buffers of inputs and outputs (devices the host cannot reach)
  /// are pooled alike but not counted here.
  uint64_t scratchAllocations() const {
    return scratchAllocations_.load(std::memory_order_relaxed);
  }

  /// Runs the plan on `inputs` (one per input, in order, with exactly its
  /// dtype and shape). `threads` caps the threads kernels use (0: all
  /// cores).
  ///
  /// Outputs: when `outputs` holds, on entry, exactly one created tensor per
  /// output with exactly its dtype and shape (e.g. the outputs of the
  /// previous run), the run writes into those tensors' buffers; such a
  /// buffer may not overlap an input's bytes (InvalidArgument naming the
  /// output), since kernels assume their arguments do not alias. Otherwise
  /// `outputs` is replaced by new tensors. On failure `outputs` stays a
  /// vector of valid tensors (reused ones hold unspecified values).
  ///
  /// An output the plan donates to an input (`plan().donations`) is written
  /// into that input's buffer, which the caller must own and let the run
  /// overwrite; its tensor in `outputs` is left empty (and needs none for
  /// reuse).
  ///
  /// `ready`, when given, is called on the running thread with each
  /// output's index and buffer as soon as the output holds its final value:
  /// after the last step whose arguments include it (before the first step
  /// for one no step touches), the device synchronized. The buffer is host
  /// memory on every device (on one the host cannot reach, the output is
  /// copied to its host tensor, or to a donated input's host buffer, first).
  /// What data-parallel training starts a gradient's all-reduce on while
  /// backward goes on.
  using OutputReady = std::function<void(size_t output, void *data)>;
  Status run(const std::vector<TensorRef> &inputs,
             std::vector<HostTensor> &outputs, uint32_t threads = 0,
             const OutputReady *ready = nullptr) const;
  /// The plan step after which output `output` is final (-1: none touches
  /// it).
  int64_t outputReadyStep(size_t output) const {
    return outputReadyStep_[output];
  }

  /// Runs the plan from now on as one device graph (CUDA graphs, PyTorch's
  /// reduce-overhead mode): the next run records its launches once, on
  /// device buffers this Program keeps for its inputs, outputs and scratch
  /// values (allocated here), and every run then copies its inputs into
  /// those buffers, replays the graph and copies the outputs out. Runs take
  /// turns (one at a time per Program); checks are read, and `ready` is
  /// called for every output, after the whole graph. Unimplemented on a
  /// device without graphs (the CPU) and for plans whose steps call the
  /// runtime's collectives; errors name the program. Not to be called
  /// while a run is in progress; calling it again does nothing.
  Status enableGraphReplay();
  bool graphReplay() const { return graph_ != nullptr; }
  /// Graph recordings so far: 1 after any number of runs with graph replay
  /// (0 before the first).
  uint64_t graphCaptures() const;

  /// What the profiler calls this program's steps: "<label>/<step name>"
  /// ("<label>/<kernel>" for a step without a name), with the step's detail,
  /// else `detail` (e.g. the ops they compute), in the trace. Not to be
  /// called while a run is in progress.
  void setLabel(std::string label, std::string detail = "");

private:
  Program() = default;
  class BufferLease;
  Status acquireBuffer(size_t which, void *&out) const;
  void releaseBuffer(size_t which, void *block) const;
  Status uploadWeights(const SectionRef *weights);
  struct GraphState;
  /// The launches of a run on `buffers`, as a graph (recorded on the first
  /// call).
  Status replayGraph(const std::vector<void *> &buffers) const;
  /// Copies output `output` from its device buffer `device` to `host`.
  Status downloadOutput(size_t output, void *host, const void *device) const;
  void nameEvents();
  Status checkNoOverlap(const std::vector<TensorRef> &inputs,
                        const std::vector<HostTensor> &outputs) const;
  /// The error of the first run-time check set in `checks` (the checks
  /// buffer, after step `step`, or kAfterGraph after a replayed graph), or
  /// ok; `slots` (4 words per check) holds the copy read.
  static constexpr size_t kAfterGraph = ~size_t(0);
  Status readChecks(const void *checks, size_t step,
                    std::vector<int64_t> &slots) const;

  ExecutableReader executable_;
  Plan plan_;
  Device *device_ = nullptr;
  std::unique_ptr<DeviceModule> module_;
  std::vector<Kernel> kernels_;       // one per plan step
  std::vector<const void *> weights_; // per plan value; null if not a weight
  std::vector<uint32_t> inputs_;
  std::vector<uint32_t> outputs_;
  /// Per output (in outputs_ order): written into an input's buffer.
  std::vector<bool> donatedOutputs_;
  uint64_t weightBytes_ = 0;
  /// The weights section in host memory, whose constants the oneDNN glue
  /// may keep reordered copies of (dropped by the destructor).
  const void *hostWeights_ = nullptr;
  size_t hostWeightsSize_ = 0;
  uint64_t codeBytes_ = 0;
  std::string source_;
  std::string label_;
  std::string detail_;
  std::vector<std::string> eventNames_; // per plan step, for the profiler
  size_t maxArgs_ = 0;                  // of any step
  /// Per plan step: it takes the checks buffer (whose slots are read
  /// after it).
  std::vector<bool> stepChecks_;
  /// Per output, the last step that touches it; per step, the outputs that
  /// are final after it.
  std::vector<int64_t> outputReadyStep_;
  std::vector<std::vector<uint32_t>> readyAfter_;

  /// Whether the device's memory is host memory; if not, the copies below.
  bool hostMemory_ = true;
  /// The weights on a device the host cannot reach: one allocation holding
  /// each weight at a 256-byte aligned offset (null without weights).
  void *deviceWeights_ = nullptr;
  /// Per output, its bytes (filled on a device the host cannot reach).
  std::vector<size_t> outputBytes_;

  std::vector<uint32_t> scratch_; // indices into plan().values
  uint64_t scratchBytes_ = 0;
  /// The values whose buffers a run takes from the pool, keyed by value
  /// index: the scratch values (the first scratch_.size() entries), then,
  /// on a device the host cannot reach, the inputs and the outputs not
  /// donated to an input.
  std::vector<uint32_t> pooled_;
  std::vector<size_t> pooledSizes_; // bytes, per entry of pooled_
  mutable std::mutex poolMutex_;
  mutable std::vector<std::vector<void *>> freeBuffers_; // per pooled_ entry
  mutable std::atomic<uint64_t> scratchAllocations_{0};
  /// Graph replay's buffers (per pooled_ entry) and graph; null without it.
  std::unique_ptr<GraphState> graph_;
};

} // namespace nnc::runtime

#endif // NNC_RUNTIME_PROGRAM_H
