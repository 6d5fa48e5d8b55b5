//===- CAPILoader.cpp - data loaders over .npz datasets -------------------===//
//
// nnc_loader_* and nnc_batch_*: the runtime's DataLoader behind the C API.
// Batches are views of the loader's recycled buffers; destroying one hands
// its buffers back while the loader lives.
//
//===----------------------------------------------------------------------===//

#include "nnc-c/runtime.h"

#include "Handles.h"

#include "nnc/runtime/DataLoader.h"

#include <algorithm>

using namespace nnc::capi;

struct nnc_batch_s {
  std::weak_ptr<rt::DataLoader> loader;
  rt::Batch batch;
  std::vector<std::unique_ptr<nnc_tensor_s>> views;
  ~nnc_batch_s() {
    if (auto owner = loader.lock())
      owner->recycle(std::move(batch));
  }
};

namespace {

nnc_status_t convertOptions(const char *fn,
                            const nnc_loader_options_t *options,
                            rt::DataLoaderOptions &out) {
  nnc_loader_options_t defaults;
  nnc_loader_options_initialize(&defaults);
  if (!options)
    options = &defaults;
  if (nnc_status_t s = checkOptions(fn, "options", options))
    return s;
  out.batchSize = options->batch_size;
  out.shuffle = options->shuffle != 0;
  out.seed = options->seed;
  out.dropLast = options->drop_last != 0;
  out.workers = options->workers;
  out.prefetch = options->prefetch;
  out.shardIndex = options->shard_index;
  out.shardCount = options->shard_count;
  if (auto transform = options->transform) {
    void *userData = options->transform_user_data;
    out.transform = [transform, userData](rt::Batch &batch) -> rt::Status {
      std::vector<nnc_tensor_s> views(batch.arrays.size());
      std::vector<nnc_tensor_t *> pointers;
      for (size_t i = 0; i < views.size(); ++i) {
        rt::HostTensor &tensor = batch.arrays[i];
        views[i].dtype = fromRuntime(tensor.dtype());
        views[i].dims = tensor.shape();
        views[i].data = tensor.data();
        views[i].byteSize = tensor.sizeInBytes();
        pointers.push_back(&views[i]);
      }
      int32_t result = transform(userData, batch.epoch, batch.index,
                                 pointers.size(), pointers.data());
      if (result != 0)
        return rt::Status(rt::StatusCode::Internal,
                          "the loader's transform returned " +
                              std::to_string(result) + " on batch " +
                              std::to_string(batch.index) + " of epoch " +
                              std::to_string(batch.epoch));
      return rt::Status::ok();
    };
  }
  return nullptr;
}

/// The checks both constructors make: an output, at least one array,
/// names that are given and distinct, valid options.
nnc_status_t checkArguments(const char *fn, size_t count,
                            const char *const *names,
                            const nnc_loader_options_t *options,
                            nnc_loader_t **out_loader,
                            rt::DataLoaderOptions &loaderOptions) {
  if (!out_loader)
    return nullArgument(fn, "out_loader");
  *out_loader = nullptr;
  if (!count)
    return invalidArgument(fn, "a loader needs at least one array");
  if (!names)
    return nullArgument(fn, "names");
  for (size_t i = 0; i < count; ++i) {
    if (!names[i])
      return invalidArgument(fn, "name " + std::to_string(i) + " is NULL");
    for (size_t j = 0; j < i; ++j)
      if (std::string(names[i]) == names[j])
        return invalidArgument(fn, std::string("array '") + names[i] +
                                       "' is asked for twice");
  }
  return convertOptions(fn, options, loaderOptions);
}

/// Starts a loader over `dataset`; `source` names it in errors.
nnc_status_t makeLoader(const char *fn, const std::string &source,
                        std::vector<rt::NpzEntry> dataset,
                        const rt::DataLoaderOptions &options,
                        nnc_loader_t **out_loader) {
  std::unique_ptr<rt::DataLoader> loader;
  rt::Status status =
      rt::DataLoader::create(std::move(dataset), options, loader);
  if (!status.isOk())
    return makeStatus(convertCode(status.code()), fn,
                      source + ": " + status.message());
  auto handle = std::make_unique<nnc_loader_s>();
  handle->loader = std::move(loader);
  *out_loader = handle.release();
  return nullptr;
}

} // namespace

extern "C" {

nnc_status_t nnc_loader_create_npz(const char *path, size_t count,
                                   const char *const *names,
                                   const nnc_loader_options_t *options,
                                   nnc_loader_t **out_loader) {
  static const char *fn = "nnc_loader_create_npz";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!path)
      return nullArgument(fn, "path");
    rt::DataLoaderOptions loaderOptions;
    if (nnc_status_t s =
            checkArguments(fn, count, names, options, out_loader, loaderOptions))
      return s;
    std::vector<rt::NpzEntry> entries;
    if (nnc_status_t s = convertStatus(fn, rt::readNpz(path, entries)))
      return s;
    std::string present;
    for (const rt::NpzEntry &e : entries)
      present += (present.empty() ? "'" : ", '") + e.name + "'";
    std::vector<rt::NpzEntry> dataset;
    for (size_t i = 0; i < count; ++i) {
      auto it = std::find_if(entries.begin(), entries.end(),
                             [&](const rt::NpzEntry &e) {
                               return e.name == names[i];
                             });
      if (it == entries.end())
        return makeStatus(NNC_STATUS_NOT_FOUND, fn,
                          std::string(path) + " has no array '" + names[i] +
                              "' (it has " +
                              (present.empty() ? "none" : present) + ")");
      dataset.push_back(std::move(*it));
      entries.erase(it);
    }
    return makeLoader(fn, path, std::move(dataset), loaderOptions,
                      out_loader);
  });
}

nnc_status_t nnc_loader_create(size_t count, const char *const *names,
                               const nnc_tensor_t *const *arrays,
                               const nnc_loader_options_t *options,
                               nnc_loader_t **out_loader) {
  static const char *fn = "nnc_loader_create";
  return guarded(fn, [&]() -> nnc_status_t {
    rt::DataLoaderOptions loaderOptions;
    if (nnc_status_t s =
            checkArguments(fn, count, names, options, out_loader, loaderOptions))
      return s;
    if (!arrays)
      return nullArgument(fn, "arrays");
    std::vector<rt::NpzEntry> dataset;
    for (size_t i = 0; i < count; ++i) {
      if (!arrays[i])
        return invalidArgument(fn, "array " + std::to_string(i) + " is NULL");
      rt::NpzEntry entry;
      entry.name = names[i];
      if (nnc_status_t s = copyToHost(fn, *arrays[i], entry.tensor))
        return s;
      dataset.push_back(std::move(entry));
    }
    return makeLoader(fn, "the arrays", std::move(dataset), loaderOptions,
                      out_loader);
  });
}

int64_t nnc_loader_sample_count(const nnc_loader_t *loader) {
  return loader ? loader->loader->numSamples() : 0;
}

int64_t nnc_loader_batches_per_epoch(const nnc_loader_t *loader) {
  return loader ? loader->loader->batchesPerEpoch() : 0;
}

nnc_status_t nnc_loader_next(nnc_loader_t *loader, nnc_batch_t **out_batch) {
  static const char *fn = "nnc_loader_next";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!loader)
      return nullArgument(fn, "loader");
    if (!out_batch)
      return nullArgument(fn, "out_batch");
    *out_batch = nullptr;
    auto batch = std::make_unique<nnc_batch_s>();
    if (nnc_status_t s = convertStatus(fn, loader->loader->next(batch->batch)))
      return s;
    batch->loader = loader->loader;
    for (rt::HostTensor &tensor : batch->batch.arrays) {
      auto view = std::make_unique<nnc_tensor_s>();
      view->dtype = fromRuntime(tensor.dtype());
      view->dims = tensor.shape();
      view->data = tensor.data();
      view->byteSize = tensor.sizeInBytes();
      batch->views.push_back(std::move(view));
    }
    *out_batch = batch.release();
    return nullptr;
  });
}

void nnc_loader_position(const nnc_loader_t *loader, int64_t *out_epoch,
                         int64_t *out_index) {
  rt::BatchPosition position;
  if (loader)
    position = loader->loader->position();
  if (out_epoch)
    *out_epoch = position.epoch;
  if (out_index)
    *out_index = position.index;
}

nnc_status_t nnc_loader_seek(nnc_loader_t *loader, int64_t epoch,
                             int64_t index) {
  static const char *fn = "nnc_loader_seek";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!loader)
      return nullArgument(fn, "loader");
    return convertStatus(fn, loader->loader->seek(epoch, index));
  });
}

double nnc_loader_wait_seconds(const nnc_loader_t *loader) {
  return loader ? loader->loader->waitSeconds() : 0.0;
}

void nnc_loader_destroy(nnc_loader_t *loader) { delete loader; }

int64_t nnc_batch_epoch(const nnc_batch_t *batch) {
  return batch ? batch->batch.epoch : 0;
}

int64_t nnc_batch_index(const nnc_batch_t *batch) {
  return batch ? batch->batch.index : 0;
}

int64_t nnc_batch_size(const nnc_batch_t *batch) {
  return batch ? batch->batch.size : 0;
}

size_t nnc_batch_tensor_count(const nnc_batch_t *batch) {
  return batch ? batch->views.size() : 0;
}

const nnc_tensor_t *nnc_batch_tensor(const nnc_batch_t *batch, size_t index) {
  if (!batch || index >= batch->views.size())
    return nullptr;
  return batch->views[index].get();
}

void nnc_batch_destroy(nnc_batch_t *batch) { delete batch; }

} // extern "C"
