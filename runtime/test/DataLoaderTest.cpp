//===- DataLoaderTest.cpp - batches for training, prepared ahead ----------===//
//
// The datasets store each sample's index in its rows, so a batch tells which
// samples it holds and whether every array's rows were gathered alike.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/DataLoader.h"

#include <gtest/gtest.h>

#include "TestUtils.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <set>
#include <thread>

using namespace nnc::runtime;

namespace {


/// "images": f32 [n, 1, 2, 3] with every element of row i equal to i (+ the
/// element's position / 100); "labels": i64 [n] = 10 * i; "flags": u8 [n, 2].
std::vector<NpzEntry> makeDataset(int64_t n) {
  std::vector<NpzEntry> d(3);
  d[0].name = "images";
  EXPECT_TRUE(HostTensor::create(DType::F32, {n, 1, 2, 3}, d[0].tensor).isOk());
  for (int64_t i = 0; i < n; ++i)
    for (int k = 0; k < 6; ++k)
      d[0].tensor.dataAs<float>()[i * 6 + k] = float(i) + float(k) / 100;
  d[1].name = "labels";
  EXPECT_TRUE(HostTensor::create(DType::I64, {n}, d[1].tensor).isOk());
  for (int64_t i = 0; i < n; ++i)
    d[1].tensor.dataAs<int64_t>()[i] = 10 * i;
  d[2].name = "flags";
  EXPECT_TRUE(HostTensor::create(DType::U8, {n, 2}, d[2].tensor).isOk());
  for (int64_t i = 0; i < n; ++i) {
    d[2].tensor.dataAs<uint8_t>()[2 * i] = uint8_t(i);
    d[2].tensor.dataAs<uint8_t>()[2 * i + 1] = uint8_t(i * 3);
  }
  return d;
}

std::unique_ptr<DataLoader> makeLoader(int64_t n,
                                       const DataLoaderOptions &options) {
  std::unique_ptr<DataLoader> loader;
  Status s = DataLoader::create(makeDataset(n), options, loader);
  EXPECT_TRUE(s.isOk()) << s.toString();
  return loader;
}

/// The sample indices in `b`, after checking that every array holds the
/// same samples with the right shapes, dtypes and alignment.
std::vector<int64_t> samplesOf(const Batch &b) {
  std::vector<int64_t> ids;
  EXPECT_EQ(b.arrays.size(), 3u);
  if (b.arrays.size() != 3)
    return ids;
  const HostTensor &images = b.arrays[0], &labels = b.arrays[1],
                   &flags = b.arrays[2];
  EXPECT_EQ(images.dtype(), DType::F32);
  EXPECT_EQ(images.shape(), (std::vector<int64_t>{b.size, 1, 2, 3}));
  EXPECT_EQ(labels.dtype(), DType::I64);
  EXPECT_EQ(labels.shape(), (std::vector<int64_t>{b.size}));
  EXPECT_EQ(flags.dtype(), DType::U8);
  EXPECT_EQ(flags.shape(), (std::vector<int64_t>{b.size, 2}));
  for (const HostTensor &t : b.arrays)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % 64, 0u);
  for (int64_t r = 0; r < b.size; ++r) {
    int64_t id = labels.dataAs<int64_t>()[r] / 10;
    for (int k = 0; k < 6; ++k)
      EXPECT_EQ(images.dataAs<float>()[r * 6 + k], float(id) + float(k) / 100);
    EXPECT_EQ(flags.dataAs<uint8_t>()[2 * r], uint8_t(id));
    EXPECT_EQ(flags.dataAs<uint8_t>()[2 * r + 1], uint8_t(id * 3));
    ids.push_back(id);
  }
  return ids;
}

/// The samples of the next `epochs` epochs, one vector per epoch, checking
/// the batch numbering on the way.
std::vector<std::vector<int64_t>> takeEpochs(DataLoader &loader, int epochs) {
  std::vector<std::vector<int64_t>> out;
  Batch b;
  for (int e = 0; e < epochs; ++e) {
    BatchPosition start = loader.position();
    std::vector<int64_t> epoch;
    for (int64_t i = 0; i < loader.batchesPerEpoch(); ++i) {
      Status s = loader.next(b);
      EXPECT_TRUE(s.isOk()) << s.toString();
      EXPECT_EQ(b.epoch, start.epoch);
      EXPECT_EQ(b.index, i);
      std::vector<int64_t> ids = samplesOf(b);
      epoch.insert(epoch.end(), ids.begin(), ids.end());
    }
    out.push_back(epoch);
  }
  return out;
}

TEST(DataLoader, EveryEpochCoversEverySampleOnce) {
  for (bool shuffle : {false, true}) {
    for (bool dropLast : {false, true}) {
      for (int64_t n : {int64_t(1), int64_t(9), int64_t(10), int64_t(12)}) {
        DataLoaderOptions o;
        o.batchSize = n == 1 ? 1 : 3;
        o.shuffle = shuffle;
        o.dropLast = dropLast;
        o.seed = 7;
        SCOPED_TRACE("n " + std::to_string(n) + " shuffle " +
                     std::to_string(shuffle) + " dropLast " +
                     std::to_string(dropLast));
        auto loader = makeLoader(n, o);
        ASSERT_TRUE(loader);
        int64_t full = n / o.batchSize, rest = n % o.batchSize;
        EXPECT_EQ(loader->batchesPerEpoch(),
                  full + (rest && !dropLast ? 1 : 0));
        Batch b;
        for (int e = 0; e < 3; ++e) {
          std::vector<int64_t> seen;
          for (int64_t i = 0; i < loader->batchesPerEpoch(); ++i) {
            ASSERT_TRUE(loader->next(b).isOk());
            EXPECT_EQ(b.epoch, e);
            EXPECT_EQ(b.index, i);
            EXPECT_EQ(b.size, i < full ? o.batchSize : rest);
            std::vector<int64_t> ids = samplesOf(b);
            seen.insert(seen.end(), ids.begin(), ids.end());
          }
          std::set<int64_t> distinct(seen.begin(), seen.end());
          EXPECT_EQ(distinct.size(), seen.size()) << "a sample repeated";
          EXPECT_EQ(int64_t(seen.size()), dropLast ? full * o.batchSize : n);
          for (int64_t id : seen)
            EXPECT_TRUE(id >= 0 && id < n);
          if (!shuffle) {
            for (size_t k = 0; k < seen.size(); ++k)
              EXPECT_EQ(seen[k], int64_t(k));
          }
        }
      }
    }
  }
}

// Shards for data-parallel training: over epochs, shuffled or not, with a
// short last batch, the shards' batch i is batch i of one loader of
// count x batchSize rows (as sets; pieces in shard order), so the shards of
// an epoch are disjoint when the count divides the samples, and padded
// with the epoch's first samples when it does not.
TEST(DataLoader, ShardsSplitTheGlobalBatches) {
  for (bool shuffle : {false, true}) {
    for (int64_t n : {int64_t(12), int64_t(13), int64_t(20)}) {
      for (int64_t count : {int64_t(2), int64_t(3)}) {
        SCOPED_TRACE("n " + std::to_string(n) + " shards " +
                     std::to_string(count) + " shuffle " +
                     std::to_string(shuffle));
        DataLoaderOptions o;
        o.batchSize = 2;
        o.shuffle = shuffle;
        o.seed = 11;
        DataLoaderOptions global = o;
        global.batchSize = 2 * count;
        std::vector<std::unique_ptr<DataLoader>> shards;
        for (int64_t r = 0; r < count; ++r) {
          DataLoaderOptions so = o;
          so.shardIndex = r;
          so.shardCount = count;
          shards.push_back(makeLoader(n, so));
          ASSERT_TRUE(shards.back());
        }
        int64_t padded = (n + count - 1) / count * count;
        EXPECT_EQ(shards[0]->shardSamples(), padded / count);
        // The order of the one loader, padded as the shards pad it.
        auto one = makeLoader(n, global);
        ASSERT_TRUE(one);
        for (int e = 0; e < 2; ++e) {
          std::vector<int64_t> order;
          for (auto &epoch : takeEpochs(*one, 1))
            order = epoch;
          for (int64_t k = n; k < padded; ++k)
            order.push_back(order[size_t(k - n)]);
          std::vector<int64_t> joined;
          for (int64_t i = 0; i < shards[0]->batchesPerEpoch(); ++i) {
            for (int64_t r = 0; r < count; ++r) {
              Batch b;
              ASSERT_TRUE(shards[size_t(r)]->next(b).isOk());
              EXPECT_EQ(b.epoch, e);
              EXPECT_EQ(b.index, i);
              std::vector<int64_t> ids = samplesOf(b);
              joined.insert(joined.end(), ids.begin(), ids.end());
            }
          }
          EXPECT_EQ(joined, order);
          if (n % count == 0) {
            std::set<int64_t> distinct(joined.begin(), joined.end());
            EXPECT_EQ(int64_t(distinct.size()), n);
          }
        }
      }
    }
  }
  DataLoaderOptions bad;
  bad.shardIndex = 2;
  bad.shardCount = 2;
  std::unique_ptr<DataLoader> loader;
  Status s = DataLoader::create(makeDataset(4), bad, loader);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("shard 2 of 2 is not a shard"), std::string::npos)
      << s.message();
  bad.shardIndex = 0;
  bad.shardCount = 5;
  s = DataLoader::create(makeDataset(4), bad, loader);
  EXPECT_NE(s.message().find("4 samples cannot be split into 5 shards"),
            std::string::npos)
      << s.message();
}

TEST(DataLoader, OrderIsAFunctionOfSeedAndEpoch) {
  DataLoaderOptions o;
  o.batchSize = 4;
  o.seed = 1234;
  auto a = makeLoader(50, o), b = makeLoader(50, o);
  auto ea = takeEpochs(*a, 3), eb = takeEpochs(*b, 3);
  EXPECT_EQ(ea, eb);
  EXPECT_NE(ea[0], ea[1]);
  EXPECT_NE(ea[1], ea[2]);
  o.seed = 1235;
  auto c = makeLoader(50, o);
  EXPECT_NE(takeEpochs(*c, 1)[0], ea[0]);
  // The loader visits exactly epochPermutation's order.
  std::vector<int64_t> p;
  for (int64_t e = 0; e < 3; ++e) {
    epochPermutation(1234, e, 50, p);
    EXPECT_EQ(ea[size_t(e)], p);
  }
}

TEST(DataLoader, PermutationIsPinned) {
  // Values from an independent Python transcription of the algorithm in
  // docs/DataFormats.md; a change here breaks resuming old runs.
  std::vector<int64_t> p;
  epochPermutation(0, 0, 10, p);
  EXPECT_EQ(p, (std::vector<int64_t>{4, 9, 2, 5, 1, 7, 6, 0, 3, 8}));
  epochPermutation(42, 1, 10, p);
  EXPECT_EQ(p, (std::vector<int64_t>{1, 5, 7, 4, 2, 9, 0, 6, 3, 8}));
  epochPermutation(42, 2, 16, p);
  EXPECT_EQ(p, (std::vector<int64_t>{11, 1, 15, 13, 0, 3, 10, 6, 12, 9, 5, 4, 2,
                                     14, 8, 7}));
  epochPermutation(~uint64_t(0), 7, 5, p);
  EXPECT_EQ(p, (std::vector<int64_t>{1, 4, 3, 2, 0}));
  epochPermutation(5, 3, 1, p);
  EXPECT_EQ(p, std::vector<int64_t>{0});
}

TEST(DataLoader, WorkerCountAndQueueDepthDoNotChangeBatches) {
  DataLoaderOptions o;
  o.batchSize = 5;
  o.seed = 99;
  o.workers = 1;
  o.prefetch = 1;
  auto one = makeLoader(23, o);
  o.workers = 4;
  o.prefetch = 8;
  auto four = makeLoader(23, o);
  Batch x, y;
  for (int i = 0; i < 25; ++i) {
    ASSERT_TRUE(one->next(x).isOk());
    ASSERT_TRUE(four->next(y).isOk());
    ASSERT_EQ(x.epoch, y.epoch);
    ASSERT_EQ(x.index, y.index);
    ASSERT_EQ(x.size, y.size);
    for (size_t a = 0; a < x.arrays.size(); ++a) {
      ASSERT_EQ(x.arrays[a].sizeInBytes(), y.arrays[a].sizeInBytes());
      EXPECT_EQ(0, std::memcmp(x.arrays[a].data(), y.arrays[a].data(),
                               x.arrays[a].sizeInBytes()));
    }
  }
}

TEST(DataLoader, SeekThenNextEqualsTheStraightSequence) {
  DataLoaderOptions o;
  o.batchSize = 4;
  o.seed = 5;
  o.workers = 3;
  o.prefetch = 3;
  auto straight = makeLoader(18, o); // 5 batches per epoch, the last of 2
  struct Seen {
    int64_t epoch, index;
    std::vector<int64_t> ids;
  };
  std::vector<Seen> sequence;
  Batch b;
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(straight->next(b).isOk());
    sequence.push_back({b.epoch, b.index, samplesOf(b)});
  }
  auto loader = makeLoader(18, o);
  // Forwards, backwards, to the same place, into the middle of an epoch.
  for (size_t at : {7u, 2u, 2u, 13u, 0u, 19u, 4u}) {
    ASSERT_TRUE(loader->seek(sequence[at].epoch, sequence[at].index).isOk());
    EXPECT_EQ(loader->position().epoch, sequence[at].epoch);
    EXPECT_EQ(loader->position().index, sequence[at].index);
    for (size_t k = at; k < std::min<size_t>(at + 3, sequence.size()); ++k) {
      ASSERT_TRUE(loader->next(b).isOk());
      EXPECT_EQ(b.epoch, sequence[k].epoch);
      EXPECT_EQ(b.index, sequence[k].index);
      EXPECT_EQ(samplesOf(b), sequence[k].ids) << "from " << at << " at " << k;
    }
  }
  // A fresh loader seeking first, as a resumed run does.
  auto resumed = makeLoader(18, o);
  ASSERT_TRUE(resumed->seek(2, 3).isOk());
  ASSERT_TRUE(resumed->next(b).isOk());
  EXPECT_EQ(samplesOf(b), sequence[13].ids);
  EXPECT_EQ(resumed->position().epoch, 2);
  EXPECT_EQ(resumed->position().index, 4);
  ASSERT_TRUE(resumed->next(b).isOk());
  EXPECT_EQ(resumed->position().epoch, 3);
  EXPECT_EQ(resumed->position().index, 0);

  EXPECT_ERROR(loader->seek(0, 5), "cannot seek to batch 5 of an epoch of 5");
  EXPECT_ERROR(loader->seek(-1, 0), "cannot seek to epoch -1");
  EXPECT_ERROR(loader->seek(0, -1), "cannot seek to batch -1");
}

TEST(DataLoader, EarlyDestructionDoesNotHang) {
  DataLoaderOptions o;
  o.batchSize = 2;
  o.workers = 4;
  o.prefetch = 2;
  {
    auto loader = makeLoader(100, o); // destroyed at once
  }
  {
    auto loader = makeLoader(100, o);
    Batch b;
    ASSERT_TRUE(loader->next(b).isOk());
    // Let the workers fill the queue and block on it.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } // `b` outlives nothing: it is destroyed before the loader
  Batch kept;
  {
    auto loader = makeLoader(100, o);
    ASSERT_TRUE(loader->next(kept).isOk());
    ASSERT_TRUE(loader->seek(3, 1).isOk());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // A batch taken from a loader stays valid after the loader is gone.
  EXPECT_EQ(samplesOf(kept).size(), 2u);
  // A slow transform still in progress when the loader is destroyed.
  o.transform = [](Batch &) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return Status::ok();
  };
  {
    auto loader = makeLoader(100, o);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

TEST(DataLoader, BuffersAreRecycled) {
  DataLoaderOptions o;
  o.batchSize = 4;
  o.workers = 2;
  o.prefetch = 2;
  auto loader = makeLoader(10, o); // batches of 4, 4, 2
  std::set<const void *> buffers;
  Batch b;
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(loader->next(b).isOk()); // takes back the previous buffers
    buffers.insert(b.arrays[0].data());
  }
  // At most (prefetch + workers + the consumer's) of each batch size.
  EXPECT_LE(buffers.size(), 2u * (2 + 2 + 1));
  // recycle() accepts only buffers that fit.
  Batch stranger;
  stranger.size = 4;
  stranger.arrays.resize(3);
  loader->recycle(std::move(stranger));
  loader->recycle(std::move(b));
  ASSERT_TRUE(loader->next(b).isOk());
  samplesOf(b);
}

TEST(DataLoader, TransformRunsOnWorkersAndItsErrorsReachNext) {
  DataLoaderOptions o;
  o.batchSize = 3;
  o.shuffle = false;
  o.workers = 3;
  o.transform = [](Batch &b) {
    if (b.epoch == 0 && b.index == 2)
      return Status(StatusCode::DataLoss, "bad sample");
    for (int64_t r = 0; r < b.size; ++r)
      b.arrays[1].dataAs<int64_t>()[r] += 1;
    return Status::ok();
  };
  auto loader = makeLoader(10, o);
  Batch b;
  ASSERT_TRUE(loader->next(b).isOk());
  EXPECT_EQ(b.arrays[1].dataAs<int64_t>()[0], 1);
  ASSERT_TRUE(loader->next(b).isOk());
  EXPECT_EQ(b.arrays[1].dataAs<int64_t>()[0], 31);
  Status s = loader->next(b);
  EXPECT_EQ(s.code(), StatusCode::DataLoss);
  EXPECT_ERROR(s, "transform failed on batch 2 of epoch 0: bad sample");
  EXPECT_ERROR(loader->next(b), "bad sample"); // stays failed
  EXPECT_EQ(loader->position().index, 2);
  ASSERT_TRUE(loader->seek(0, 3).isOk()); // past the bad batch
  ASSERT_TRUE(loader->next(b).isOk());
  EXPECT_EQ(b.index, 3);
  EXPECT_EQ(b.arrays[1].dataAs<int64_t>()[0], 91);
}

TEST(DataLoader, CountsTheTimeNextWaits) {
  DataLoaderOptions o;
  o.batchSize = 2;
  o.workers = 1;
  o.prefetch = 1;
  o.transform = [](Batch &) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return Status::ok();
  };
  auto loader = makeLoader(20, o);
  EXPECT_EQ(loader->waitSeconds(), 0.0);
  Batch b;
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(loader->next(b).isOk());
  // The worker is slower than this consumer: most calls waited.
  EXPECT_GE(loader->waitCount(), 3);
  EXPECT_GE(loader->waitSeconds(), 0.010);
}

TEST(DataLoader, RejectsBadOptionsAndDatasets) {
  std::unique_ptr<DataLoader> loader;
  DataLoaderOptions o;
  o.batchSize = 0;
  EXPECT_ERROR(DataLoader::create(makeDataset(4), o, loader),
               "batch size 0 is not >= 1");
  o = DataLoaderOptions();
  o.workers = 0;
  EXPECT_ERROR(DataLoader::create(makeDataset(4), o, loader),
               "workers 0 is not >= 1");
  o = DataLoaderOptions();
  o.prefetch = 0;
  EXPECT_ERROR(DataLoader::create(makeDataset(4), o, loader),
               "prefetch 0 is not >= 1");
  o = DataLoaderOptions();
  o.batchSize = 5;
  o.dropLast = true;
  EXPECT_ERROR(DataLoader::create(makeDataset(4), o, loader),
               "batch size 5 with dropLast leaves no batch of the 4 samples");
  o = DataLoaderOptions();
  EXPECT_ERROR(DataLoader::create({}, o, loader), "the dataset has no arrays");

  std::vector<NpzEntry> d = makeDataset(4);
  ASSERT_TRUE(HostTensor::create(DType::I64, {5}, d[1].tensor).isOk());
  EXPECT_ERROR(DataLoader::create(std::move(d), o, loader),
               "dataset array 'labels' (i64 5) has 5 samples, but 'images' "
               "(f32 4x1x2x3) has 4");
  d = makeDataset(4);
  ASSERT_TRUE(HostTensor::create(DType::F32, {}, d[2].tensor).isOk());
  EXPECT_ERROR(DataLoader::create(std::move(d), o, loader),
               "dataset array 'flags' (f32 scalar) has no sample dimension");
  d = makeDataset(4);
  d[2].name = "images";
  EXPECT_ERROR(DataLoader::create(std::move(d), o, loader),
               "two arrays named 'images'");
  d = makeDataset(0);
  EXPECT_ERROR(DataLoader::create(std::move(d), o, loader),
               "'images' (f32 0x1x2x3) has no samples");
  EXPECT_FALSE(loader);
}

TEST(DataLoader, ZeroSizedRowsAreServed) {
  std::vector<NpzEntry> d(1);
  d[0].name = "empty_rows";
  ASSERT_TRUE(HostTensor::create(DType::F32, {5, 0}, d[0].tensor).isOk());
  DataLoaderOptions o;
  o.batchSize = 2;
  std::unique_ptr<DataLoader> loader;
  ASSERT_TRUE(DataLoader::create(std::move(d), o, loader).isOk());
  Batch b;
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(loader->next(b).isOk());
  EXPECT_EQ(b.epoch, 1);
  EXPECT_EQ(b.arrays[0].shape(), (std::vector<int64_t>{2, 0}));
}

} // namespace
