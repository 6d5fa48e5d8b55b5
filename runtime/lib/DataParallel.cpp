//===- DataParallel.cpp - a trainer as one rank of a group ----------------===//
//
// The data-parallel half of Trainer: joining a group (agreement on what is
// trained, rank 0's state to every rank), the gradients summed over the
// ranks in buckets, and rank 0's buffers after each update.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Collectives.h"
#include "nnc/runtime/Profiler.h"
#include "nnc/runtime/Sha256.h"
#include "nnc/runtime/Trainer.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace nnc::runtime {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// What every rank must agree on: the model, the loss and optimizer (the
/// fingerprint), the values' signatures, the accumulation, the seed and the
/// learning rate schedule.
Sha256Digest agreementDigest(const TrainerSpec &spec) {
  Sha256 sha;
  auto text = [&](const std::string &s) {
    uint64_t size = s.size();
    sha.update(&size, sizeof size);
    sha.update(s.data(), s.size());
  };
  auto integer = [&](int64_t v) { sha.update(&v, sizeof v); };
  auto values = [&](const std::vector<TrainValue> &list) {
    integer(static_cast<int64_t>(list.size()));
    for (const TrainValue &v : list) {
      text(v.name);
      integer(static_cast<int64_t>(v.dtype));
      integer(static_cast<int64_t>(v.dims.size()));
      for (int64_t d : v.dims)
        integer(d);
    }
  };
  text(spec.fingerprint);
  values(spec.slots);
  values(spec.data);
  integer(spec.accumulate);
  integer(static_cast<int64_t>(spec.seed));
  // The learning rate and its schedule (not in the fingerprint, which lets
  // a resumed run change them).
  const LrSchedule &lr = spec.schedule;
  integer(static_cast<int64_t>(lr.kind));
  for (double v : {lr.lr, lr.gamma, lr.minLr})
    sha.update(&v, sizeof v);
  integer(lr.stepSize);
  integer(lr.warmupSteps);
  integer(lr.totalSteps);
  return sha.finish();
}

/// The loss scaler as the bytes rank 0 broadcasts.
struct ScalerImage {
  double scale, growthFactor, backoffFactor, minScale;
  int64_t growthInterval, goodSteps, steps;
  uint64_t draws;
  int32_t dynamic;
  int32_t pad = 0;
};

} // namespace

/// The gradient buckets of data-parallel steps and the thread that reduces
/// them. Buckets hold consecutive gradients of one dtype in reverse
/// parameter order (the order backward makes them in), up to the cap: the
/// same on every rank, whatever order its program writes them in. The
/// thread reduces them in bucket order, each as soon as all its gradients
/// are ready, so every rank issues the same collectives in the same order.
class GradientReducer {
public:
  struct Gradient {
    DType dtype = DType::F32;
    int64_t elements = 0;
    /// The gradient step's step after which it is written (-1: before).
    int64_t readyStep = -1;
  };

  explicit GradientReducer(Communicator &comm) : comm_(comm) {}
  ~GradientReducer() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable())
      thread_.join();
  }

  int64_t bucketCount() const { return static_cast<int64_t>(buckets_.size()); }
  int64_t bytes() const { return bytes_; }

  /// Whether start() with `gradients` and `cap` plans the buckets anew:
  /// when their sizes or the cap change, the same on every rank (not when
  /// only the steps they are ready after do: another batch shape's program,
  /// or another rank's compile, keeps the buckets it has).
  bool needsPlan(const std::vector<Gradient> &gradients, int64_t cap) const {
    return !samePlan(gradients, cap);
  }

  /// The buckets' gradients, in reduction order.
  std::vector<std::vector<size_t>> bucketGradients() const {
    std::vector<std::vector<size_t>> out;
    for (const Bucket &bucket : buckets_)
      out.push_back(bucket.gradients);
    return out;
  }

  /// Starts one reduction of `gradients` (planning the buckets when they
  /// changed, filled in `order`, a permutation of the gradients the same
  /// on every rank); the previous one has finished. Gradient n is reduced
  /// where ready() says it lies, or, with `sums`, added into (*sums)[n]
  /// first, which is reduced. The thread is started on the first reduction
  /// and serves every later one.
  Status start(const std::vector<Gradient> &gradients, int64_t cap,
               const std::vector<int64_t> &order,
               std::vector<HostTensor> *sums) {
    if (!thread_.joinable()) {
      try {
        thread_ = std::thread([this] { work(); });
      } catch (const std::system_error &e) {
        return Status(StatusCode::Unavailable,
                      std::string("cannot start the gradient all-reduce "
                                  "thread: ") +
                          e.what());
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (!samePlan(gradients, cap)) {
      std::vector<bool> seen(gradients.size(), false);
      if (order.size() != gradients.size())
        return Status(StatusCode::Internal, "the bucket order has " +
                                                std::to_string(order.size()) +
                                                " gradients, not " +
                                                std::to_string(
                                                    gradients.size()));
      for (int64_t n : order) {
        if (n < 0 || static_cast<size_t>(n) >= gradients.size() || seen[n])
          return Status(StatusCode::Internal,
                        "the bucket order is not a permutation");
        seen[n] = true;
      }
      plan(gradients, cap, order);
    }
    if (sums) {
      if (sums->size() != gradients.size())
        return Status(StatusCode::Internal, "accumulated gradients missing");
      for (size_t n = 0; n < gradients.size(); ++n)
        if ((*sums)[n].dtype() != gradients[n].dtype ||
            (*sums)[n].numElements() != gradients[n].elements)
          return Status(StatusCode::Internal,
                        "accumulated gradient " + std::to_string(n) +
                            " does not match the gradient");
    }
    sums_ = sums;
    std::fill(data_.begin(), data_.end(), nullptr);
    for (Bucket &bucket : buckets_)
      bucket.pending = static_cast<int64_t>(bucket.gradients.size());
    status_ = Status::ok();
    abandoned_ = false;
    seconds_ = 0;
    ++started_;
    wake_.notify_all();
    return Status::ok();
  }

  /// Gradient n holds its final value at `data` (on the running thread).
  void ready(size_t n, void *data) {
    if (n >= data_.size())
      return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (data_[n])
      return;
    data_[n] = data;
    if (--buckets_[bucketOf_[n]].pending == 0)
      wake_.notify_all();
  }

  /// Waits for the reductions (`abandon`: the computation failed, no more
  /// gradients come); returns the first failure, the seconds waited and
  /// the seconds spent in collectives.
  Status finish(bool abandon, double &waited, double &seconds) {
    auto start = Clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    if (abandon) {
      abandoned_ = true;
      wake_.notify_all();
    }
    served_cv_.wait(lock, [&] { return served_ == started_; });
    waited = secondsSince(start);
    seconds = seconds_;
    return status_;
  }

private:
  struct Bucket {
    std::vector<size_t> gradients;
    DType dtype = DType::F32;
    int64_t elements = 0;
    int64_t pending = 0;
    HostTensor staging; ///< for buckets of more than one gradient
  };

  bool samePlan(const std::vector<Gradient> &gradients, int64_t cap) const {
    if (cap != cap_ || gradients.size() != planned_.size())
      return false;
    for (size_t n = 0; n < gradients.size(); ++n)
      if (gradients[n].dtype != planned_[n].dtype ||
          gradients[n].elements != planned_[n].elements)
        return false;
    return true;
  }

  void plan(const std::vector<Gradient> &gradients, int64_t cap,
            const std::vector<int64_t> &order) {
    buckets_.clear();
    bucketOf_.assign(gradients.size(), 0);
    data_.assign(gradients.size(), nullptr);
    bytes_ = 0;
    int64_t filled = 0;
    for (int64_t index : order) {
      auto n = static_cast<size_t>(index);
      int64_t size = gradients[n].elements *
                     static_cast<int64_t>(dtypeSize(gradients[n].dtype));
      if (buckets_.empty() || buckets_.back().dtype != gradients[n].dtype ||
          filled + size > cap) {
        buckets_.emplace_back();
        buckets_.back().dtype = gradients[n].dtype;
        filled = 0;
      }
      buckets_.back().gradients.push_back(n);
      buckets_.back().elements += gradients[n].elements;
      bucketOf_[n] = buckets_.size() - 1;
      filled += size;
      bytes_ += size;
    }
    planned_ = gradients;
    cap_ = cap;
  }

  /// The thread: for each reduction started, every bucket in order, once
  /// all its gradients are ready.
  void work() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      wake_.wait(lock, [&] { return stopping_ || started_ > served_; });
      if (stopping_)
        return;
      std::vector<void *> data;
      for (Bucket &bucket : buckets_) {
        wake_.wait(lock, [&] {
          return bucket.pending == 0 || abandoned_ || stopping_;
        });
        if (bucket.pending != 0)
          break; // abandoned: the step fails anyway
        data.clear();
        for (size_t n : bucket.gradients)
          data.push_back(data_[n]);
        lock.unlock();
        Status s = reduce(bucket, data);
        lock.lock();
        if (!s.isOk()) {
          status_ = s;
          break;
        }
      }
      served_ = started_;
      served_cv_.notify_all();
    }
  }

  Status reduce(Bucket &bucket, const std::vector<void *> &data) {
    const size_t width = dtypeSize(bucket.dtype);
    // The sums, when there are earlier micro-batches, hold what is reduced.
    std::vector<void *> targets = data;
    if (sums_)
      for (size_t i = 0; i < bucket.gradients.size(); ++i) {
        HostTensor &sum = (*sums_)[bucket.gradients[i]];
        NNC_RUNTIME_RETURN_IF_ERROR(addInto(sum, data[i]));
        targets[i] = sum.data();
      }
    auto start = Clock::now();
    if (bucket.gradients.size() == 1) {
      Status s =
          comm_.allReduce(targets[0], static_cast<size_t>(bucket.elements),
                          bucket.dtype, ReduceOp::Sum);
      seconds_ += secondsSince(start);
      return s;
    }
    if (!bucket.staging.data() ||
        bucket.staging.numElements() != bucket.elements)
      NNC_RUNTIME_RETURN_IF_ERROR(
          HostTensor::create(bucket.dtype, {bucket.elements}, bucket.staging));
    auto *staging = bucket.staging.dataAs<uint8_t>();
    size_t offset = 0;
    for (size_t i = 0; i < bucket.gradients.size(); ++i) {
      size_t bytes =
          static_cast<size_t>(planned_[bucket.gradients[i]].elements) * width;
      std::memcpy(staging + offset, targets[i], bytes);
      offset += bytes;
    }
    Status s = comm_.allReduce(staging, static_cast<size_t>(bucket.elements),
                               bucket.dtype, ReduceOp::Sum);
    seconds_ += secondsSince(start);
    NNC_RUNTIME_RETURN_IF_ERROR(s);
    offset = 0;
    for (size_t i = 0; i < bucket.gradients.size(); ++i) {
      size_t bytes =
          static_cast<size_t>(planned_[bucket.gradients[i]].elements) * width;
      std::memcpy(targets[i], staging + offset, bytes);
      offset += bytes;
    }
    return Status::ok();
  }

  /// sum += the gradient at `data` (f32 or f64, as accumulation allows).
  static Status addInto(HostTensor &sum, const void *data) {
    int64_t n = sum.numElements();
    if (sum.dtype() == DType::F64) {
      double *s = sum.dataAs<double>();
      const auto *v = static_cast<const double *>(data);
      for (int64_t i = 0; i < n; ++i)
        s[i] += v[i];
      return Status::ok();
    }
    if (sum.dtype() != DType::F32)
      return Status(StatusCode::Unimplemented, std::string("accumulating ") +
                                                   dtypeName(sum.dtype()) +
                                                   " gradients");
    float *s = sum.dataAs<float>();
    const auto *v = static_cast<const float *>(data);
    for (int64_t i = 0; i < n; ++i)
      s[i] += v[i];
    return Status::ok();
  }

  Communicator &comm_;
  std::vector<Gradient> planned_;
  int64_t cap_ = 0;
  int64_t bytes_ = 0;
  std::vector<Bucket> buckets_;
  std::vector<size_t> bucketOf_;
  std::vector<void *> data_;
  std::vector<HostTensor> *sums_ = nullptr;
  std::thread thread_;
  std::mutex mutex_;
  /// Guarded by mutex_: the reductions started and finished, and what the
  /// thread waits on.
  std::condition_variable wake_, served_cv_;
  uint64_t started_ = 0, served_ = 0;
  bool stopping_ = false;
  bool abandoned_ = false;
  Status status_;
  double seconds_ = 0;
};

Trainer::Trainer() = default;
Trainer::~Trainer() = default;

Status Trainer::distribute(std::shared_ptr<Communicator> communicator,
                           const DataParallelOptions &options) {
  if (!communicator)
    return Status(StatusCode::InvalidArgument, "distribute: no communicator");
  if (communicator_)
    return Status(StatusCode::InvalidArgument,
                  "distribute: the trainer is already rank " +
                      std::to_string(communicator_->rank()) + " of " +
                      std::to_string(communicator_->size()));
  if (microSteps_ != 0)
    return Status(StatusCode::InvalidArgument,
                  "distribute: refused in the middle of an accumulation (" +
                      std::to_string(microSteps_) + " of " +
                      std::to_string(spec_.accumulate) + " micro-batches)");
  if (options.bucketBytes < 1)
    return Status(StatusCode::InvalidArgument,
                  "distribute: the bucket size " +
                      std::to_string(options.bucketBytes) +
                      " bytes is not positive");
  auto start = Clock::now();
  Communicator &comm = *communicator;
  const int rank = comm.rank(), size = comm.size();

  // Every rank trains the same thing, or none does: the digests of what
  // it trains and of the caller's agreement text, side by side.
  Sha256Digest mine = agreementDigest(spec_);
  Sha256Digest extra = Sha256::hash(options.agreement.data(),
                                      options.agreement.size());
  const size_t width = mine.size() + extra.size();
  std::vector<uint8_t> both(width);
  std::memcpy(both.data(), mine.data(), mine.size());
  std::memcpy(both.data() + mine.size(), extra.data(), extra.size());
  std::vector<uint8_t> all(width * static_cast<size_t>(size));
  NNC_RUNTIME_RETURN_IF_ERROR(comm.allGather(both.data(), all.data(), width));
  // The ranks whose part at `offset` (of `bytes`) differs from rank 0's.
  auto differing = [&](size_t offset, size_t bytes, int &count) {
    std::string ranks;
    count = 0;
    for (int r = 0; r < size; ++r)
      if (std::memcmp(all.data() + r * width + offset, all.data() + offset,
                      bytes)) {
        ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
        ++count;
      }
    return ranks;
  };
  auto who = [&](const std::string &ranks, int count, const char *one,
                 const char *many) {
    return "rank " + std::to_string(rank) + " of " + std::to_string(size) +
           ": " + (count == 1 ? "rank " + ranks + one : "ranks " + ranks + many);
  };
  int count = 0;
  std::string ranks = differing(0, mine.size(), count);
  if (!ranks.empty())
    return Status(StatusCode::InvalidArgument,
                  who(ranks, count, " trains", " train") +
                      " another model or with other options than rank "
                      "0 (the model, its loss and optimizer and their "
                      "settings, the learning rate and its schedule, the "
                      "data's signature, --accumulate and the seed must be "
                      "the same on every rank)");
  ranks = differing(mine.size(), extra.size(), count);
  if (!ranks.empty())
    return Status(StatusCode::InvalidArgument,
                  who(ranks, count, " differs", " differ") +
                      " from rank 0 in what every rank must have the same; "
                      "this rank has: " +
                      options.agreement);

  // Rank 0's values everywhere (as DDP's constructor broadcasts them).
  copiesFresh_ = false;
  for (std::vector<HostTensor> *values : {&slots_, &state_})
    for (HostTensor &value : *values)
      if (value.sizeInBytes() != 0)
        NNC_RUNTIME_RETURN_IF_ERROR(
            comm.broadcast(value.data(), value.sizeInBytes(), 0));
  ScalerImage image{scaler_.scale,
                    scaler_.growthFactor,
                    scaler_.backoffFactor,
                    scaler_.minScale,
                    scaler_.growthInterval,
                    scaler_.goodSteps,
                    steps_,
                    draws_,
                    scaler_.dynamic ? 1 : 0};
  NNC_RUNTIME_RETURN_IF_ERROR(comm.broadcast(&image, sizeof image, 0));
  scaler_.scale = image.scale;
  scaler_.growthFactor = image.growthFactor;
  scaler_.backoffFactor = image.backoffFactor;
  scaler_.minScale = image.minScale;
  scaler_.growthInterval = image.growthInterval;
  scaler_.goodSteps = image.goodSteps;
  scaler_.dynamic = image.dynamic != 0;
  steps_ = image.steps;
  draws_ = image.draws;

  communicator_ = std::move(communicator);
  dpOptions_ = options;
  dpStats_ = DataParallelStats();
  dpStats_.seconds = secondsSince(start);
  dpStats_.exposedSeconds = dpStats_.seconds;
  reducer_.reset();
  programCommunicator_.reset();
  return Status::ok();
}

Status Trainer::reducedGradients(const std::vector<TensorRef> &batch,
                                 const Shapes &key, double scale, double lr,
                                 double &loss, bool &compiled) {
  std::vector<TensorRef> refs;
  TrainProgram program;
  NNC_RUNTIME_RETURN_IF_ERROR(lookup(TrainFunctionKind::Grad, &batch, key,
                                     nullptr, scale, lr, refs, program,
                                     compiled));
  const Program &grad = *program.program;
  const TrainFunction &function = (*source_->layout())[TrainFunctionKind::Grad];
  // Which output is which gradient, and what the gradients are.
  const size_t count = spec_.trainable.size();
  std::vector<int64_t> gradientOf(grad.outputs().size(), -1);
  std::vector<GradientReducer::Gradient> gradients(count);
  size_t found = 0;
  for (size_t k = 0; k < function.results.size() && k < gradientOf.size();
       ++k) {
    const TrainResult &result = function.results[k];
    if (result.sink != TrainSink::Gradient || result.index >= count)
      continue;
    const PlanValue &value = grad.plan().values[grad.outputs()[k]];
    int64_t elements = 0;
    size_t bytes = 0;
    NNC_RUNTIME_RETURN_IF_ERROR(
        checkedShapeSize(value.shape, dtypeSize(value.dtype), elements, bytes));
    gradientOf[k] = result.index;
    gradients[result.index] = {value.dtype, elements, grad.outputReadyStep(k)};
    ++found;
  }
  if (found != count)
    return Status(StatusCode::Internal,
                  "the gradient function returns " + std::to_string(found) +
                      " of the " + std::to_string(count) + " gradients");
  if (!reducer_)
    reducer_ = std::make_unique<GradientReducer>(*communicator_);
  // The buckets are filled in the order the gradient step finishes the
  // gradients (ties: backward's, the reverse parameter order). Every rank
  // takes rank 0's order: ranks whose compiles chose differently (tuned
  // kernels) still reduce the same buckets.
  std::vector<int64_t> order;
  bool replan = reducer_->needsPlan(gradients, dpOptions_.bucketBytes);
  if (replan) {
    for (size_t n = 0; n < count; ++n)
      order.push_back(static_cast<int64_t>(n));
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      if (gradients[a].readyStep != gradients[b].readyStep)
        return gradients[a].readyStep < gradients[b].readyStep;
      return a > b;
    });
    NNC_RUNTIME_RETURN_IF_ERROR(communicator_->broadcast(
        order.data(), order.size() * sizeof(int64_t), 0));
  }
  NNC_RUNTIME_RETURN_IF_ERROR(
      reducer_->start(gradients, dpOptions_.bucketBytes, order,
                      microSteps_ == 0 ? nullptr : &accumulated_));
  dpStats_.buckets = reducer_->bucketCount();
  dpStats_.bytesPerStep = reducer_->bytes();
  dpStats_.gradientSteps = static_cast<int64_t>(grad.plan().steps.size());
  if (replan) {
    dpStats_.bucketList.clear();
    for (const std::vector<size_t> &members : reducer_->bucketGradients()) {
      DataParallelBucket bucket;
      bucket.gradients = static_cast<int64_t>(members.size());
      for (size_t n : members) {
        bucket.bytes += gradients[n].elements *
                        static_cast<int64_t>(dtypeSize(gradients[n].dtype));
        bucket.readyStep = std::max(bucket.readyStep, gradients[n].readyStep);
      }
      bucket.first = spec_.slots[spec_.trainable[members.front()]].name;
      bucket.last = spec_.slots[spec_.trainable[members.back()]].name;
      dpStats_.bucketList.push_back(std::move(bucket));
    }
  }

  // The previous generation of the outputs, if any, is written in place.
  std::vector<HostTensor> outputs;
  outputs.swap(spare_[static_cast<unsigned>(TrainFunctionKind::Grad)][key]);
  Program::OutputReady ready = [&](size_t output, void *data) {
    if (gradientOf[output] >= 0)
      reducer_->ready(static_cast<size_t>(gradientOf[output]), data);
  };
  Status status = runProgram(grad, refs, outputs, program.threads,
                             dpOptions_.overlap ? &ready : nullptr);
  if (status.isOk() && !dpOptions_.overlap)
    for (size_t k = 0; k < outputs.size(); ++k)
      ready(k, outputs[k].data());
  double waited = 0, seconds = 0;
  Status reduced = reducer_->finish(!status.isOk(), waited, seconds);
  dpStats_.seconds += seconds;
  dpStats_.exposedSeconds += waited;
  NNC_RUNTIME_RETURN_IF_ERROR(status);
  NNC_RUNTIME_RETURN_IF_ERROR(reduced);
  ++dpStats_.reductions;

  std::vector<HostTensor> local(count);
  bool ignored = false;
  takeResults(TrainFunctionKind::Grad, outputs, /*applyUpdates=*/true, loss,
              ignored, &local);
  // The first micro-batch's gradients were reduced where they lie; later
  // ones were added into the sums, which were reduced.
  if (microSteps_ == 0)
    accumulated_ = std::move(local);
  return Status::ok();
}

Status Trainer::runProgram(const Program &program,
                           const std::vector<TensorRef> &refs,
                           std::vector<HostTensor> &out, int threads,
                           const Program::OutputReady *ready) {
  if (!communicator_ || !program.plan().needsCollectives)
    return program.run(refs, out, threads, ready);
  // Collectives inside the program (synchronized batch normalization) run
  // on a communicator of their own, every rank splitting it off at the
  // same step; every micro-batch's, not only the last one's.
  if (!programCommunicator_)
    NNC_RUNTIME_RETURN_IF_ERROR(
        communicator_->split("program", programCommunicator_));
  CollectiveScope scope(programCommunicator_.get());
  Status status = program.run(refs, out, threads, ready);
  dpStats_.programCollectives = static_cast<int64_t>(scope.calls());
  dpStats_.programBytes = static_cast<int64_t>(scope.bytes());
  return status;
}

Status Trainer::broadcastBuffers() {
  auto start = Clock::now();
  int64_t bytes = 0;
  std::vector<bool> trainable(slots_.size(), false);
  for (unsigned t : spec_.trainable)
    trainable[t] = true;
  for (size_t n = 0; n < slots_.size(); ++n) {
    if (trainable[n] || slots_[n].sizeInBytes() == 0)
      continue;
    NNC_RUNTIME_RETURN_IF_ERROR(
        communicator_->broadcast(slots_[n].data(), slots_[n].sizeInBytes(), 0));
    bytes += static_cast<int64_t>(slots_[n].sizeInBytes());
  }
  dpStats_.bufferBytesPerStep = bytes;
  dpStats_.seconds += secondsSince(start);
  dpStats_.exposedSeconds += secondsSince(start);
  return Status::ok();
}

} // namespace nnc::runtime
