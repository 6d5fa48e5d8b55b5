//===- DataLoader.h - batches for training, prepared ahead ------*- C++ -*-===//
//
// Serves a dataset (named arrays sharing their first, sample dimension, as
// readNpz returns them) as an endless sequence of batches across epochs.
// Worker threads gather batches ahead of the training loop into a bounded,
// in-order queue, so a step does not wait for data when the workers keep up.
// The order is a pure function of the seed and the epoch, the same for any
// number of workers, and any position can be returned to (resuming from a
// checkpoint). docs/DataFormats.md states the permutation exactly.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_DATALOADER_H
#define NNC_RUNTIME_DATALOADER_H

#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/NpyIO.h"
#include "nnc/runtime/Status.h"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace nnc::runtime {

/// One batch: rows of every dataset array, gathered in the epoch's order.
struct Batch {
  int64_t epoch = 0;
  /// The batch within its epoch, from 0.
  int64_t index = 0;
  /// Rows in this batch: the batch size, except for a short last batch of
  /// the epoch (unless dropLast).
  int64_t size = 0;
  /// One tensor per dataset array, in dataset order, each [size, ...rest of
  /// the array's shape], 64-byte aligned.
  std::vector<HostTensor> arrays;
};

struct DataLoaderOptions {
  /// Rows per batch; >= 1.
  int64_t batchSize = 32;
  /// Visit the samples in a new pseudo-random order every epoch; otherwise
  /// in order 0..N-1.
  bool shuffle = true;
  uint64_t seed = 0;
  /// Leave out the last batch of an epoch when it would be short.
  bool dropLast = false;
  /// Threads that gather batches; >= 1.
  int64_t workers = 2;
  /// Batches prepared ahead of the consumer at most (the queue depth); >= 1.
  int64_t prefetch = 4;
  /// Data-parallel training: this loader serves shard `shardIndex` of
  /// `shardCount` (0 <= shardIndex < shardCount <= the samples). Every
  /// shard visits the same epoch order (the same seed); the order is padded
  /// to a multiple of `shardCount` with its first samples, as PyTorch's
  /// DistributedSampler does, and cut into global batches of shardCount x
  /// batchSize rows, each split into shardCount consecutive pieces of equal
  /// size: shard r's batch i is piece r of global batch i. The shards of an
  /// epoch are disjoint (but for the padding), and their batch i together
  /// is batch i of one loader of shardCount x batchSize rows, and the
  /// micro-batches shardCount i .. shardCount i + shardCount - 1 of one
  /// loader of batchSize rows.
  int64_t shardIndex = 0;
  int64_t shardCount = 1;
  /// Optional; runs on a worker thread on each gathered batch (augmentation,
  /// normalization). It may change the arrays' contents but not their
  /// shapes, and must be a function of the batch alone (its contents, epoch
  /// and index) for runs to be reproducible. An error stops the loader:
  /// next() returns it in place of that batch.
  std::function<Status(Batch &)> transform;
};

/// Where a loader stands: the batch next() returns next.
struct BatchPosition {
  int64_t epoch = 0;
  int64_t index = 0;
};

/// Checks that `dataset` is non-empty, that every array has a first
/// dimension, that all first dimensions are the same N > 0, and that names
/// are unique; sets `numSamples` to N. Errors name the arrays and shapes.
Status validateDataset(const std::vector<NpzEntry> &dataset,
                       int64_t &numSamples);

/// The order in which epoch `epoch` visits samples 0..n-1 when shuffling:
/// a Fisher-Yates shuffle driven by SplitMix64 seeded from (seed, epoch),
/// exactly as docs/DataFormats.md states it.
void epochPermutation(uint64_t seed, int64_t epoch, int64_t n,
                      std::vector<int64_t> &out);

/// One consumer thread calls next(), recycle() and seek(); the workers are
/// the loader's own. Destroying the loader stops and joins them, waiting at
/// most for the batches (and transforms) already in progress.
class DataLoader {
public:
  /// Validates `dataset` and `options`, then starts the workers. The loader
  /// owns the dataset.
  static Status create(std::vector<NpzEntry> dataset,
                       const DataLoaderOptions &options,
                       std::unique_ptr<DataLoader> &out);

  /// Stops the workers and joins them; batches in the queue are dropped.
  ~DataLoader();
  DataLoader(const DataLoader &) = delete;
  DataLoader &operator=(const DataLoader &) = delete;

  /// Waits until the batch at position() is ready and moves it into `out`.
  /// The buffers `out` held before are taken back for reuse (see recycle),
  /// so a loop that passes the same Batch allocates nothing in steady state.
  /// A worker's error is returned here, in order, and again by every later
  /// call until seek().
  Status next(Batch &out);

  /// Hands a batch's buffers back for later batches. Optional: buffers not
  /// handed back are freed, and new ones allocated.
  void recycle(Batch &&batch);

  /// Drops the prepared batches and repositions: the next call of next()
  /// returns batch `index` of epoch `epoch`. 0 <= index < batchesPerEpoch().
  Status seek(int64_t epoch, int64_t index);

  /// The (epoch, index) of the batch next() returns next.
  BatchPosition position() const;

  int64_t batchesPerEpoch() const { return batchesPerEpoch_; }
  /// The samples of the dataset (of every shard together).
  int64_t numSamples() const { return numSamples_; }
  /// The rows this loader serves per epoch: numSamples() padded to a
  /// multiple of the shard count, divided by it.
  int64_t shardSamples() const { return shardSamples_; }
  const std::vector<NpzEntry> &dataset() const { return dataset_; }
  const DataLoaderOptions &options() const { return options_; }

  /// Total seconds next() spent waiting for a batch, and how many calls
  /// waited at all: what data loading cost the training loop.
  double waitSeconds() const;
  int64_t waitCount() const;

private:
  struct Slot {
    bool ready = false;
    int64_t sequence = -1;
    Batch batch;
    Status status;
  };

  DataLoader(std::vector<NpzEntry> dataset, const DataLoaderOptions &options,
             int64_t numSamples);
  void workerLoop();
  /// Gathers batch `sequence` (epoch * batchesPerEpoch + index) into
  /// `batch`, whose arrays are either empty or recycled buffers of the right
  /// shapes.
  Status produce(int64_t sequence, const std::vector<int64_t> *permutation,
                 Batch &batch);
  int64_t rowsOf(int64_t index) const;
  /// Requires the lock.
  void recycleLocked(Batch &&batch);
  std::shared_ptr<const std::vector<int64_t>>
  permutationFor(int64_t epoch, std::unique_lock<std::mutex> &lock);

  std::vector<NpzEntry> dataset_;
  DataLoaderOptions options_;
  int64_t numSamples_ = 0;
  int64_t shardSamples_ = 0;
  int64_t batchesPerEpoch_ = 0;
  std::vector<size_t> rowBytes_;

  mutable std::mutex mutex_;
  std::condition_variable workReady_;  // a worker may claim a batch
  std::condition_variable batchReady_; // a slot became ready
  bool stopping_ = false;
  /// A worker failed; no more batches are claimed until seek().
  bool failed_ = false;
  /// Bumped by seek(): batches claimed before it are dropped.
  uint64_t generation_ = 0;
  int64_t consumed_ = 0; // the sequence number next() returns
  int64_t claimed_ = 0;  // the next sequence number a worker takes
  std::vector<Slot> slots_;
  /// Recycled buffers by row count (a full and a short batch differ).
  std::map<int64_t, std::vector<std::vector<HostTensor>>> pool_;
  std::map<int64_t, std::shared_ptr<const std::vector<int64_t>>> permutations_;
  int64_t waitNanos_ = 0;
  int64_t waitCount_ = 0;
  std::vector<std::thread> workers_;
};

} // namespace nnc::runtime

#endif // NNC_RUNTIME_DATALOADER_H
