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

#include <chrono>
#include <cstring>
#include <string>
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

  // Every rank trains the same thing, or none does.
  Sha256Digest mine = agreementDigest(spec_);
  std::vector<uint8_t> all(mine.size() * static_cast<size_t>(size));
  NNC_RUNTIME_RETURN_IF_ERROR(
      comm.allGather(mine.data(), all.data(), mine.size()));
  std::string differing;
  int count = 0;
  for (int r = 0; r < size; ++r)
    if (std::memcmp(all.data() + r * mine.size(), all.data(), mine.size())) {
      differing += (differing.empty() ? "" : ", ") + std::to_string(r);
      ++count;
    }
  if (!differing.empty())
    return Status(StatusCode::InvalidArgument,
                  "rank " + std::to_string(rank) + " of " +
                      std::to_string(size) + ": " +
                      (count == 1 ? "rank " + differing + " trains"
                                  : "ranks " + differing + " train") +
                      " another model or with other options than rank "
                      "0 (the model, its loss and optimizer and their "
                      "settings, the learning rate and its schedule, the "
                      "data's signature, --accumulate and the seed must be "
                      "the same on every rank)");

  // Rank 0's values everywhere (as DDP's constructor broadcasts them).
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
  buckets_.clear();
  return Status::ok();
}

Status Trainer::allReduceGradients(std::vector<HostTensor> &gradients) {
  auto start = Clock::now();
  ProfileScope profile("allreduce", "gradient all-reduce");
  // Planned for these gradients: in reverse order, consecutive ones of one
  // dtype share a bucket up to the cap.
  bool planned = !buckets_.empty();
  if (planned) {
    size_t covered = 0;
    for (const Bucket &bucket : buckets_)
      for (unsigned g : bucket.gradients) {
        ++covered;
        planned &= g < gradients.size() && gradients[g].dtype() == bucket.dtype;
      }
    planned &= covered == gradients.size();
  }
  if (!planned) {
    buckets_.clear();
    int64_t bytes = 0;
    for (size_t n = gradients.size(); n-- > 0;) {
      const HostTensor &g = gradients[n];
      int64_t size = static_cast<int64_t>(g.sizeInBytes());
      if (buckets_.empty() || buckets_.back().dtype != g.dtype() ||
          bytes + size > dpOptions_.bucketBytes) {
        buckets_.emplace_back();
        buckets_.back().dtype = g.dtype();
        bytes = 0;
      }
      Bucket &bucket = buckets_.back();
      bucket.gradients.push_back(static_cast<unsigned>(n));
      bucket.elements += g.numElements();
      bytes += size;
    }
    dpStats_.buckets = static_cast<int64_t>(buckets_.size());
    dpStats_.bytesPerStep = 0;
    for (const HostTensor &g : gradients)
      dpStats_.bytesPerStep += static_cast<int64_t>(g.sizeInBytes());
  }
  for (Bucket &bucket : buckets_) {
    if (bucket.gradients.size() == 1) {
      HostTensor &g = gradients[bucket.gradients[0]];
      NNC_RUNTIME_RETURN_IF_ERROR(communicator_->allReduce(
          g.data(), static_cast<size_t>(g.numElements()), g.dtype(),
          ReduceOp::Sum));
      continue;
    }
    if (!bucket.staging.data() ||
        bucket.staging.numElements() != bucket.elements)
      NNC_RUNTIME_RETURN_IF_ERROR(
          HostTensor::create(bucket.dtype, {bucket.elements}, bucket.staging));
    auto *staging = bucket.staging.dataAs<uint8_t>();
    size_t offset = 0;
    for (unsigned n : bucket.gradients) {
      std::memcpy(staging + offset, gradients[n].data(),
                  gradients[n].sizeInBytes());
      offset += gradients[n].sizeInBytes();
    }
    NNC_RUNTIME_RETURN_IF_ERROR(
        communicator_->allReduce(staging, static_cast<size_t>(bucket.elements),
                                 bucket.dtype, ReduceOp::Sum));
    offset = 0;
    for (unsigned n : bucket.gradients) {
      std::memcpy(gradients[n].data(), staging + offset,
                  gradients[n].sizeInBytes());
      offset += gradients[n].sizeInBytes();
    }
  }
  ++dpStats_.reductions;
  dpStats_.seconds += secondsSince(start);
  return Status::ok();
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
  return Status::ok();
}

} // namespace nnc::runtime
