//===- DataLoader.cpp - batches for training, prepared ahead --------------===//
//
// Batches are numbered by one sequence, epoch * batchesPerEpoch + index.
// Workers claim sequence numbers in order, never more than `prefetch` ahead
// of the consumer, and fill the slot `sequence % prefetch`; the consumer
// takes slots strictly in sequence order. Which worker fills a batch thus
// never changes its contents, only when it is ready.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/DataLoader.h"

#include "nnc/runtime/Profiler.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <numeric>
#include <set>
#include <system_error>

namespace nnc::runtime {
namespace {

Status invalid(const std::string &what) {
  return Status(StatusCode::InvalidArgument, "data loader: " + what);
}

std::string describeArray(const NpzEntry &entry) {
  return "'" + entry.name + "' (" + dtypeName(entry.tensor.dtype()) + " " +
         formatShape(entry.tensor.shape()) + ")";
}

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// The 128-bit product a * b as two halves (portable: no __int128).
void multiply(uint64_t a, uint64_t b, uint64_t &high, uint64_t &low) {
  uint64_t aLo = a & 0xffffffffu, aHi = a >> 32;
  uint64_t bLo = b & 0xffffffffu, bHi = b >> 32;
  uint64_t ll = aLo * bLo, lh = aLo * bHi, hl = aHi * bLo, hh = aHi * bHi;
  uint64_t middle = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
  low = (middle << 32) | (ll & 0xffffffffu);
  high = hh + (lh >> 32) + (hl >> 32) + (middle >> 32);
}

/// SplitMix64 (Steele, Lea, Flood 2014).
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t state) : state_(state) {}
  uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ull;
    return mix64(state_);
  }
  /// Uniform in [0, bound), bound >= 1, without bias (Lemire 2019: the high
  /// half of the 128-bit product next() * bound, rejecting the few low
  /// halves that would favour some results).
  uint64_t below(uint64_t bound) {
    uint64_t high, low;
    multiply(next(), bound, high, low);
    if (low < bound) {
      uint64_t threshold = (0 - bound) % bound;
      while (low < threshold)
        multiply(next(), bound, high, low);
    }
    return high;
  }

private:
  uint64_t state_;
};

} // namespace

Status validateDataset(const std::vector<NpzEntry> &dataset,
                       int64_t &numSamples) {
  if (dataset.empty())
    return invalid("the dataset has no arrays");
  std::set<std::string> names;
  for (const NpzEntry &entry : dataset) {
    if (!names.insert(entry.name).second)
      return invalid("the dataset has two arrays named '" + entry.name + "'");
    if (entry.tensor.rank() == 0)
      return invalid("dataset array " + describeArray(entry) +
                     " has no sample dimension (every array needs a first "
                     "dimension over the samples)");
  }
  const NpzEntry &first = dataset.front();
  int64_t n = first.tensor.shape()[0];
  if (n == 0)
    return invalid("dataset array " + describeArray(first) + " has no samples");
  for (const NpzEntry &entry : dataset)
    if (entry.tensor.shape()[0] != n)
      return invalid("dataset array " + describeArray(entry) + " has " +
                     std::to_string(entry.tensor.shape()[0]) +
                     " samples, but " + describeArray(first) + " has " +
                     std::to_string(n) +
                     " (all arrays share the first dimension)");
  numSamples = n;
  return Status::ok();
}

void epochPermutation(uint64_t seed, int64_t epoch, int64_t n,
                      std::vector<int64_t> &out) {
  out.resize(static_cast<size_t>(std::max<int64_t>(n, 0)));
  std::iota(out.begin(), out.end(), int64_t(0));
  SplitMix64 rng(seed ^ mix64(static_cast<uint64_t>(epoch)));
  for (int64_t i = n - 1; i > 0; --i) {
    uint64_t j = rng.below(static_cast<uint64_t>(i) + 1);
    std::swap(out[static_cast<size_t>(i)], out[static_cast<size_t>(j)]);
  }
}

//===----------------------------------------------------------------------===//
// DataLoader
//===----------------------------------------------------------------------===//

DataLoader::DataLoader(std::vector<NpzEntry> dataset,
                       const DataLoaderOptions &options, int64_t numSamples)
    : dataset_(std::move(dataset)), options_(options), numSamples_(numSamples) {
  shardSamples_ = (numSamples_ + options_.shardCount - 1) / options_.shardCount;
  batchesPerEpoch_ = options_.dropLast
                         ? shardSamples_ / options_.batchSize
                         : (shardSamples_ - 1) / options_.batchSize + 1;
  for (const NpzEntry &entry : dataset_)
    rowBytes_.push_back(entry.tensor.sizeInBytes() /
                        static_cast<size_t>(numSamples_));
  slots_.resize(static_cast<size_t>(options_.prefetch));
}

Status DataLoader::create(std::vector<NpzEntry> dataset,
                          const DataLoaderOptions &options,
                          std::unique_ptr<DataLoader> &out) {
  if (options.batchSize < 1)
    return invalid("batch size " + std::to_string(options.batchSize) +
                   " is not >= 1");
  if (options.workers < 1)
    return invalid("workers " + std::to_string(options.workers) +
                   " is not >= 1");
  if (options.prefetch < 1)
    return invalid("prefetch " + std::to_string(options.prefetch) +
                   " is not >= 1");
  // Bounds that keep sequence arithmetic and thread counts sane.
  if (options.workers > 1024 || options.prefetch > (int64_t(1) << 20))
    return invalid("workers (" + std::to_string(options.workers) +
                   ") or prefetch (" + std::to_string(options.prefetch) +
                   ") is unreasonably large");
  int64_t n = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(validateDataset(dataset, n));
  if (options.shardCount < 1 || options.shardIndex < 0 ||
      options.shardIndex >= options.shardCount)
    return invalid("shard " + std::to_string(options.shardIndex) + " of " +
                   std::to_string(options.shardCount) +
                   " is not a shard (0 <= index < count)");
  if (options.shardCount > n)
    return invalid(
        "the " + std::to_string(n) + " samples cannot be split into " +
        std::to_string(options.shardCount) + " shards of at least one sample");
  int64_t rows = (n + options.shardCount - 1) / options.shardCount;
  if (options.dropLast && options.batchSize > rows)
    return invalid(
        "batch size " + std::to_string(options.batchSize) +
        " with dropLast leaves no batch of the " + std::to_string(rows) +
        " samples" +
        (options.shardCount > 1
             ? " of each of " + std::to_string(options.shardCount) + " shards"
             : std::string()));

  std::unique_ptr<DataLoader> loader(
      new DataLoader(std::move(dataset), options, n));
  try {
    for (int64_t i = 0; i < options.workers; ++i)
      loader->workers_.emplace_back([l = loader.get()] { l->workerLoop(); });
  } catch (const std::system_error &e) {
    // The destructor stops and joins the workers that did start.
    return Status(StatusCode::Unavailable,
                  std::string("data loader: cannot start a worker thread: ") +
                      e.what());
  }
  out = std::move(loader);
  return Status::ok();
}

DataLoader::~DataLoader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  workReady_.notify_all();
  batchReady_.notify_all();
  for (std::thread &worker : workers_)
    worker.join();
}

int64_t DataLoader::rowsOf(int64_t index) const {
  int64_t start = index * options_.batchSize;
  return std::min(options_.batchSize, shardSamples_ - start);
}

std::shared_ptr<const std::vector<int64_t>>
DataLoader::permutationFor(int64_t epoch, std::unique_lock<std::mutex> &lock) {
  auto it = permutations_.find(epoch);
  if (it != permutations_.end())
    return it->second;
  // Computed without the lock; two workers may both compute one, and the
  // result is the same.
  lock.unlock();
  auto permutation = std::make_shared<std::vector<int64_t>>();
  if (options_.shuffle) {
    epochPermutation(options_.seed, epoch, numSamples_, *permutation);
  } else {
    permutation->resize(static_cast<size_t>(numSamples_));
    std::iota(permutation->begin(), permutation->end(), int64_t(0));
  }
  if (options_.shardCount > 1) {
    // This shard's rows in batch order: piece shardIndex of every global
    // batch, over the order padded with its first samples.
    const int64_t count = options_.shardCount, batchSize = options_.batchSize;
    std::vector<int64_t> shard(static_cast<size_t>(shardSamples_));
    for (int64_t index = 0, row = 0; row < shardSamples_; ++index) {
      int64_t rows = std::min(batchSize, shardSamples_ - row);
      int64_t first = index * count * batchSize + options_.shardIndex * rows;
      for (int64_t j = 0; j < rows; ++j, ++row) {
        int64_t q = first + j;
        shard[static_cast<size_t>(row)] = (*permutation)[static_cast<size_t>(
            q < numSamples_ ? q : q - numSamples_)];
      }
    }
    permutation->swap(shard);
  }
  lock.lock();
  return permutations_.emplace(epoch, std::move(permutation)).first->second;
}

void DataLoader::workerLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    workReady_.wait(lock, [&] {
      return stopping_ ||
             (!failed_ && claimed_ < consumed_ + options_.prefetch);
    });
    if (stopping_)
      return;
    int64_t sequence = claimed_++;
    uint64_t generation = generation_;
    int64_t epoch = sequence / batchesPerEpoch_;
    std::shared_ptr<const std::vector<int64_t>> permutation;
    if (options_.shuffle || options_.shardCount > 1)
      permutation = permutationFor(epoch, lock);
    Batch batch;
    auto pooled = pool_.find(rowsOf(sequence % batchesPerEpoch_));
    if (pooled != pool_.end() && !pooled->second.empty()) {
      batch.arrays = std::move(pooled->second.back());
      pooled->second.pop_back();
    }

    lock.unlock();
    Status status = produce(sequence, permutation.get(), batch);
    lock.lock();

    if (stopping_)
      return;
    if (generation != generation_) {
      // A seek() came in meanwhile: this batch is no longer wanted.
      recycleLocked(std::move(batch));
      continue;
    }
    Slot &slot = slots_[static_cast<size_t>(sequence % options_.prefetch)];
    slot.sequence = sequence;
    slot.batch = std::move(batch);
    slot.status = status;
    slot.ready = true;
    if (!status.isOk())
      failed_ = true;
    batchReady_.notify_all();
  }
}

Status DataLoader::produce(int64_t sequence,
                           const std::vector<int64_t> *permutation,
                           Batch &batch) {
  batch.epoch = sequence / batchesPerEpoch_;
  batch.index = sequence % batchesPerEpoch_;
  batch.size = rowsOf(batch.index);
  int64_t start = batch.index * options_.batchSize;
  if (batch.arrays.size() != dataset_.size()) {
    batch.arrays.clear();
    batch.arrays.resize(dataset_.size());
    for (size_t a = 0; a < dataset_.size(); ++a) {
      std::vector<int64_t> shape = dataset_[a].tensor.shape();
      shape[0] = batch.size;
      Status s = HostTensor::create(dataset_[a].tensor.dtype(),
                                    std::move(shape), batch.arrays[a]);
      if (!s.isOk())
        return Status(s.code(), "data loader: cannot allocate batch " +
                                    std::to_string(batch.index) + " of epoch " +
                                    std::to_string(batch.epoch) + " for '" +
                                    dataset_[a].name + "': " + s.message());
    }
  }
  for (size_t a = 0; a < dataset_.size(); ++a) {
    size_t rowBytes = rowBytes_[a];
    const auto *src = dataset_[a].tensor.dataAs<uint8_t>();
    auto *dst = batch.arrays[a].dataAs<uint8_t>();
    if (rowBytes == 0)
      continue;
    if (!permutation) {
      std::memcpy(dst, src + static_cast<size_t>(start) * rowBytes,
                  static_cast<size_t>(batch.size) * rowBytes);
      continue;
    }
    const int64_t *order = permutation->data() + start;
    for (int64_t r = 0; r < batch.size; ++r)
      std::memcpy(dst + static_cast<size_t>(r) * rowBytes,
                  src + static_cast<size_t>(order[r]) * rowBytes, rowBytes);
  }
  if (options_.transform) {
    Status s = options_.transform(batch);
    if (!s.isOk())
      return Status(s.code(), "data loader: transform failed on batch " +
                                  std::to_string(batch.index) + " of epoch " +
                                  std::to_string(batch.epoch) + ": " +
                                  s.message());
  }
  return Status::ok();
}

Status DataLoader::next(Batch &out) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!out.arrays.empty())
    recycleLocked(std::move(out));
  out = Batch();
  Slot &slot = slots_[static_cast<size_t>(consumed_ % options_.prefetch)];
  auto isReady = [&] { return slot.ready && slot.sequence == consumed_; };
  if (!isReady()) {
    auto start = std::chrono::steady_clock::now();
    ProfileScope profile("data", "data loader wait");
    ++waitCount_;
    batchReady_.wait(lock, isReady);
    waitNanos_ += std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  }
  if (!slot.status.isOk())
    return slot.status; // stays in the slot: returned again until seek()
  out = std::move(slot.batch);
  slot.batch = Batch();
  slot.ready = false;
  ++consumed_;
  // Permutations of epochs behind the consumer are no longer needed.
  int64_t epoch = consumed_ / batchesPerEpoch_;
  permutations_.erase(permutations_.begin(), permutations_.lower_bound(epoch));
  lock.unlock();
  workReady_.notify_one();
  return Status::ok();
}

void DataLoader::recycle(Batch &&batch) {
  std::lock_guard<std::mutex> lock(mutex_);
  recycleLocked(std::move(batch));
}

void DataLoader::recycleLocked(Batch &&batch) {
  std::vector<HostTensor> arrays = std::move(batch.arrays);
  batch = Batch();
  // Only buffers that fit a batch of this dataset are kept.
  if (arrays.size() != dataset_.size())
    return;
  int64_t rows = arrays[0].rank() == 0 ? -1 : arrays[0].shape()[0];
  for (size_t a = 0; a < arrays.size(); ++a) {
    const HostTensor &t = arrays[a], &whole = dataset_[a].tensor;
    if (t.dtype() != whole.dtype() || t.rank() != whole.rank() ||
        t.data() == nullptr || t.shape()[0] != rows ||
        !std::equal(t.shape().begin() + 1, t.shape().end(),
                    whole.shape().begin() + 1))
      return;
  }
  if (rows != options_.batchSize && rows != rowsOf(batchesPerEpoch_ - 1))
    return;
  std::vector<std::vector<HostTensor>> &free = pool_[rows];
  // Never more than could be in flight at once.
  if (static_cast<int64_t>(free.size()) <
      options_.prefetch + options_.workers + 2)
    free.push_back(std::move(arrays));
}

Status DataLoader::seek(int64_t epoch, int64_t index) {
  if (epoch < 0 ||
      epoch > (std::numeric_limits<int64_t>::max() / 2) / batchesPerEpoch_)
    return invalid("cannot seek to epoch " + std::to_string(epoch));
  if (index < 0 || index >= batchesPerEpoch_)
    return invalid("cannot seek to batch " + std::to_string(index) +
                   " of an epoch of " + std::to_string(batchesPerEpoch_) +
                   " batches");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++generation_;
    for (Slot &slot : slots_) {
      if (slot.ready)
        recycleLocked(std::move(slot.batch));
      slot = Slot();
    }
    consumed_ = claimed_ = epoch * batchesPerEpoch_ + index;
    failed_ = false;
    permutations_.clear();
  }
  workReady_.notify_all();
  return Status::ok();
}

BatchPosition DataLoader::position() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return BatchPosition{consumed_ / batchesPerEpoch_,
                       consumed_ % batchesPerEpoch_};
}

double DataLoader::waitSeconds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<double>(waitNanos_) * 1e-9;
}

int64_t DataLoader::waitCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return waitCount_;
}

} // namespace nnc::runtime
