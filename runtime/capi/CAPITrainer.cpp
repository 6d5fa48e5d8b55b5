//===- CAPITrainer.cpp - trainers: the C API ------------------------------===//
//
// The trainer part of include/nnc-c/runtime.h over nnc::runtime::Trainer:
// steps, gradients, evaluation, parameters, checkpoints, and saved
// trainers. nnc_trainer_create (libnnc) makes trainers that compile; the
// functions here run any trainer.
//
//===----------------------------------------------------------------------===//

#include "nnc-c/runtime.h"

#include "Handles.h"

#include "nnc/runtime/Collectives.h"
#include "nnc/runtime/Trainer.h"

#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>

using namespace nnc::capi;

nnc_trainer_s::~nnc_trainer_s() = default;

namespace {

nnc_status_t outOfRange(const char *fn, size_t index, size_t count,
                        const char *what) {
  return makeStatus(NNC_STATUS_OUT_OF_RANGE, fn,
                    "index " + std::to_string(index) + " is past the " +
                        std::to_string(count) + " " + what);
}

/// The references of `data[0, count)` for Trainer::checkData.
nnc_status_t batchOf(const char *fn, const nnc_trainer_s &t, size_t count,
                     const nnc_tensor_t *const *data,
                     std::vector<rt::TensorRef> &out) {
  if (count && !data)
    return nullArgument(fn, "data");
  const std::vector<rt::TrainValue> &signature = t.trainer->spec().data;
  out.clear();
  for (size_t i = 0; i < count; ++i) {
    if (!data[i])
      return invalidArgument(fn, "data " + std::to_string(i) +
                                     (i < signature.size()
                                          ? " ('" + signature[i].name + "')"
                                          : std::string()) +
                                     " is NULL");
    rt::TensorRef ref;
    ref.dtype = toRuntime(data[i]->dtype);
    ref.dims = data[i]->dims.data();
    ref.rank = data[i]->dims.size();
    ref.data = data[i]->data;
    ref.byteSize = data[i]->byteSize;
    out.push_back(ref);
  }
  return nullptr;
}

/// Points the parameter views at the current values: steps and checkpoint
/// loads swap the buffers they update, and a view handed out earlier must
/// show the new values.
void refreshViews(nnc_trainer_s &t) {
  const std::vector<rt::HostTensor> &values = t.trainer->slotValues();
  for (size_t i = 0; i < values.size() && i < t.slotViews.size(); ++i) {
    nnc_tensor_s &view = t.slotViews[i];
    view.dtype = fromRuntime(values[i].dtype());
    view.dims = values[i].shape();
    view.data = const_cast<void *>(values[i].data());
    view.byteSize = values[i].sizeInBytes();
  }
}

nnc_status_t loaded(const char *fn, rt::Status status,
                    std::unique_ptr<rt::Trainer> trainer,
                    nnc_trainer_t **out_trainer) {
  if (!status.isOk())
    return convertStatus(fn, status);
  *out_trainer = makeTrainer(std::move(trainer)).release();
  return nullptr;
}

} // namespace

nnc_status_t nnc::capi::checkBatch(const char *fn, const nnc_trainer_s &t,
                                   size_t count,
                                   const nnc_tensor_t *const *data,
                                   size_t expected, Batch &batch) {
  if (count != expected)
    return invalidArgument(fn, "expected " + std::to_string(expected) +
                                   " data tensors, got " +
                                   std::to_string(count));
  if (nnc_status_t s = batchOf(fn, t, count, data, batch.refs))
    return s;
  return convertStatus(fn, t.trainer->checkData(batch.refs, expected, batch.key,
                                                batch.flatDims));
}

std::unique_ptr<nnc_trainer_s>
nnc::capi::makeTrainer(std::unique_ptr<rt::Trainer> trainer) {
  auto t = std::make_unique<nnc_trainer_s>();
  const rt::TrainerSpec &spec = trainer->spec();
  for (const rt::TrainValue &v : spec.data)
    t->data.push_back(describeValue(v.name, v.kind, v.dtype, v.dims));
  for (const rt::TrainValue &v : spec.slots)
    t->slots.push_back(describeValue(v.name, v.kind, v.dtype, v.dims));
  t->slotViews.resize(spec.slots.size());
  t->trainer = std::move(trainer);
  refreshViews(*t);
  return t;
}

extern "C" {

size_t nnc_trainer_data_count(const nnc_trainer_t *trainer) {
  return trainer ? trainer->data.size() : 0;
}

nnc_status_t nnc_trainer_data_info(const nnc_trainer_t *trainer, size_t index,
                                   const nnc_value_info_t **out_info) {
  static const char *fn = "nnc_trainer_data_info";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    if (!out_info)
      return nullArgument(fn, "out_info");
    if (index >= trainer->data.size())
      return outOfRange(fn, index, trainer->data.size(), "data tensors");
    *out_info = &trainer->data[index]->info;
    return nullptr;
  });
}

nnc_status_t nnc_trainer_step(nnc_trainer_t *trainer, size_t count,
                              const nnc_tensor_t *const *data,
                              nnc_step_info_t *out_info) {
  static const char *fn = "nnc_trainer_step";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    // Callers built before the non-finite fields pass the older size.
    constexpr size_t olderSize = offsetof(nnc_step_info_t, nonfinite);
    if (out_info && out_info->struct_size != sizeof(nnc_step_info_t) &&
        out_info->struct_size != olderSize)
      return invalidArgument(fn, "out_info->struct_size must be "
                                 "sizeof(nnc_step_info_t)");
    Batch batch;
    if (nnc_status_t s =
            checkBatch(fn, *trainer, count, data, trainer->data.size(), batch))
      return s;
    rt::StepResult result;
    rt::Status status = trainer->trainer->step(batch.refs, batch.key, result);
    refreshViews(*trainer);
    if (nnc_status_t s = convertStatus(fn, status))
      return s;
    if (out_info) {
      out_info->loss = result.loss;
      out_info->applied = result.applied;
      out_info->skipped = result.skipped;
      out_info->learning_rate = result.learningRate;
      out_info->loss_scale = result.lossScale;
      out_info->step = result.step;
      out_info->seconds = result.seconds;
      out_info->compiled = result.compiled;
      if (out_info->struct_size == sizeof(nnc_step_info_t)) {
        trainer->nonFinite = result.nonFinite;
        out_info->nonfinite =
            result.skipped ? trainer->nonFinite.c_str() : nullptr;
        out_info->probe_seconds = result.probeSeconds;
      }
    }
    return nullptr;
  });
}

nnc_status_t nnc_trainer_step_stats(const nnc_trainer_t *trainer,
                                    nnc_executable_stats_t *out_stats) {
  static const char *fn = "nnc_trainer_step_stats";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    const rt::TrainProgram *last = trainer->trainer->lastStep();
    if (!last)
      return makeStatus(NNC_STATUS_NOT_FOUND, fn,
                        "no training step has run yet");
    return programStats(fn, *last->program, last->compileSeconds,
                        last->fromCache, out_stats);
  });
}

nnc_status_t nnc_trainer_gradients(nnc_trainer_t *trainer, size_t count,
                                   const nnc_tensor_t *const *data,
                                   double *out_loss, size_t num_gradients,
                                   nnc_tensor_t **out_gradients) {
  static const char *fn = "nnc_trainer_gradients";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    size_t trainable = trainer->trainer->spec().trainable.size();
    if (num_gradients != trainable)
      return invalidArgument(fn, "the model has " + std::to_string(trainable) +
                                     " trainable parameters, got room for " +
                                     std::to_string(num_gradients));
    if (num_gradients && !out_gradients)
      return nullArgument(fn, "out_gradients");
    Batch batch;
    if (nnc_status_t s =
            checkBatch(fn, *trainer, count, data, trainer->data.size(), batch))
      return s;
    double loss = 0;
    std::vector<rt::HostTensor> gradients;
    if (nnc_status_t s =
            convertStatus(fn, trainer->trainer->gradients(batch.refs, batch.key,
                                                          loss, gradients)))
      return s;
    if (out_loss)
      *out_loss = loss;
    for (size_t n = 0; n < gradients.size(); ++n)
      out_gradients[n] = makeOwnedTensor(std::move(gradients[n])).release();
    return nullptr;
  });
}

nnc_status_t nnc_trainer_evaluate(nnc_trainer_t *trainer, size_t count,
                                  const nnc_tensor_t *const *inputs,
                                  size_t num_outputs, nnc_tensor_t **outputs) {
  static const char *fn = "nnc_trainer_evaluate";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    Batch batch;
    if (nnc_status_t s = checkBatch(fn, *trainer, count, inputs,
                                    trainer->data.size() - 1, batch))
      return s;
    rt::Trainer &t = *trainer->trainer;
    auto wrongCount = [&](size_t expected) {
      return invalidArgument(fn, "the model has " + std::to_string(expected) +
                                     " outputs, got room for " +
                                     std::to_string(num_outputs));
    };
    // The output count is known once the functions exist; a first
    // evaluation builds them and checks after.
    if (t.outputCount() >= 0 &&
        num_outputs != static_cast<size_t>(t.outputCount()))
      return wrongCount(static_cast<size_t>(t.outputCount()));
    if (num_outputs && !outputs)
      return nullArgument(fn, "outputs");
    std::vector<rt::HostTensor> results;
    if (nnc_status_t s =
            convertStatus(fn, t.evaluate(batch.refs, batch.key, results)))
      return s;
    if (results.size() != num_outputs)
      return wrongCount(results.size());
    for (size_t k = 0; k < results.size(); ++k)
      outputs[k] = makeOwnedTensor(std::move(results[k])).release();
    return nullptr;
  });
}

nnc_status_t nnc_trainer_info(const nnc_trainer_t *trainer,
                              nnc_trainer_info_t *out_info) {
  static const char *fn = "nnc_trainer_info";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    if (!out_info)
      return nullArgument(fn, "out_info");
    if (out_info->struct_size != sizeof(nnc_trainer_info_t))
      return invalidArgument(fn, "out_info->struct_size must be "
                                 "sizeof(nnc_trainer_info_t)");
    const rt::TrainerSpec &spec = trainer->trainer->spec();
    out_info->loss_output = spec.lossOutput;
    out_info->class_loss = spec.loss != "mse";
    out_info->accumulate = spec.accumulate;
    out_info->seed = spec.seed;
    return nullptr;
  });
}

namespace {

/// The launch `options` and the environment describe, checked.
nnc_status_t resolveLaunch(const char *fn,
                           const nnc_distributed_options_t *&options,
                           const nnc_distributed_options_t &defaults,
                           rt::CommunicatorOptions &comm) {
  if (!options)
    options = &defaults;
  if (nnc_status_t s = checkOptions(fn, "options", options))
    return s;
  bool found = false;
  if (options->from_environment)
    if (nnc_status_t s =
            convertStatus(fn, rt::launchFromEnvironment(comm.launch, found)))
      return s;
  if (!found) {
    if (options->world_size < 1 || options->rank < 0 ||
        options->rank >= options->world_size)
      return invalidArgument(fn, "rank " + std::to_string(options->rank) +
                                     " is not a rank of a world of " +
                                     std::to_string(options->world_size));
    if (!options->master_addr || !*options->master_addr)
      return invalidArgument(fn, "options->master_addr is not set");
    if (options->master_port < 1 || options->master_port > 65535)
      return invalidArgument(fn, "master port " +
                                     std::to_string(options->master_port) +
                                     " is not in 1..65535");
    comm.launch.rank = options->rank;
    comm.launch.worldSize = options->world_size;
    comm.launch.localRank = options->rank;
    comm.launch.localWorldSize = options->world_size;
    comm.launch.masterAddr = options->master_addr;
    comm.launch.masterPort = options->master_port;
    comm.launch.source = "nnc_distributed_options_t";
  }
  if (!(options->timeout_seconds > 0) ||
      !std::isfinite(options->timeout_seconds) ||
      options->timeout_seconds > 1e6)
    return invalidArgument(fn, "timeout_seconds must be in (0, 1e6]");
  if (options->bucket_bytes < 1)
    return invalidArgument(fn, "bucket_bytes " +
                                   std::to_string(options->bucket_bytes) +
                                   " is not positive");
  return nullptr;
}

} // namespace

nnc_status_t nnc_distributed_launch(const nnc_distributed_options_t *options,
                                    nnc_distributed_info_t *out_info) {
  static const char *fn = "nnc_distributed_launch";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!out_info)
      return nullArgument(fn, "out_info");
    if (out_info->struct_size != sizeof(nnc_distributed_info_t))
      return invalidArgument(fn, "out_info->struct_size must be "
                                 "sizeof(nnc_distributed_info_t)");
    nnc_distributed_options_t defaults;
    nnc_distributed_options_initialize(&defaults);
    rt::CommunicatorOptions comm;
    if (nnc_status_t s = resolveLaunch(fn, options, defaults, comm))
      return s;
    std::memset(reinterpret_cast<char *>(out_info) + sizeof(size_t), 0,
                sizeof(*out_info) - sizeof(size_t));
    out_info->rank = comm.launch.rank;
    out_info->world_size = comm.launch.worldSize;
    out_info->local_rank = comm.launch.localRank;
    out_info->local_world_size = comm.launch.localWorldSize;
    out_info->backend = "";
    return nullptr;
  });
}

nnc_status_t nnc_trainer_distribute(nnc_trainer_t *trainer,
                                    const nnc_distributed_options_t *options) {
  static const char *fn = "nnc_trainer_distribute";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    if (trainer->trainer->communicator())
      return invalidArgument(fn, "the trainer is already distributed");
    nnc_distributed_options_t defaults;
    nnc_distributed_options_initialize(&defaults);
    rt::CommunicatorOptions comm;
    if (nnc_status_t s = resolveLaunch(fn, options, defaults, comm))
      return s;
    trainer->localRank = comm.launch.localRank;
    trainer->localWorldSize = comm.launch.localWorldSize;
    if (comm.launch.worldSize == 1)
      return nullptr;
    comm.timeoutMs = static_cast<int64_t>(options->timeout_seconds * 1000);
    if (options->iface)
      comm.iface = options->iface;
    else if (const char *iface = std::getenv("GLOO_SOCKET_IFNAME"))
      comm.iface = iface;
    std::unique_ptr<rt::Communicator> communicator;
    if (nnc_status_t s =
            convertStatus(fn, rt::createGlooCommunicator(comm, communicator)))
      return s;
    rt::DataParallelOptions dp;
    dp.bucketBytes = options->bucket_bytes;
    dp.broadcastBuffers = options->broadcast_buffers != 0;
    dp.overlap = options->overlap != 0;
    if (options->agreement)
      dp.agreement = options->agreement;
    std::string backend = communicator->backend();
    rt::Status status = trainer->trainer->distribute(
        std::shared_ptr<rt::Communicator>(std::move(communicator)), dp);
    refreshViews(*trainer);
    if (nnc_status_t s = convertStatus(fn, status))
      return s;
    trainer->backend = backend;
    return nullptr;
  });
}

nnc_status_t nnc_trainer_distributed_info(const nnc_trainer_t *trainer,
                                          nnc_distributed_info_t *out_info) {
  static const char *fn = "nnc_trainer_distributed_info";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    if (!out_info)
      return nullArgument(fn, "out_info");
    if (out_info->struct_size != sizeof(nnc_distributed_info_t))
      return invalidArgument(fn, "out_info->struct_size must be "
                                 "sizeof(nnc_distributed_info_t)");
    const rt::Communicator *comm = trainer->trainer->communicator();
    const rt::DataParallelStats &stats = trainer->trainer->dataParallelStats();
    out_info->rank = comm ? comm->rank() : 0;
    out_info->world_size = comm ? comm->size() : 1;
    out_info->local_rank = comm ? trainer->localRank : 0;
    out_info->local_world_size = comm ? trainer->localWorldSize : 1;
    out_info->backend = trainer->backend.c_str();
    out_info->buckets = stats.buckets;
    out_info->bytes_per_step = stats.bytesPerStep;
    out_info->buffer_bytes_per_step = stats.bufferBytesPerStep;
    out_info->reductions = stats.reductions;
    out_info->seconds = stats.seconds;
    out_info->exposed_seconds = stats.exposedSeconds;
    out_info->gradient_steps = stats.gradientSteps;
    out_info->program_collectives_per_step = stats.programCollectives;
    out_info->program_bytes_per_step = stats.programBytes;
    return nullptr;
  });
}

nnc_status_t nnc_trainer_distributed_bucket(const nnc_trainer_t *trainer,
                                            size_t index,
                                            nnc_distributed_bucket_t *out) {
  static const char *fn = "nnc_trainer_distributed_bucket";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    if (!out)
      return nullArgument(fn, "out_bucket");
    if (out->struct_size != sizeof(nnc_distributed_bucket_t))
      return invalidArgument(fn, "out_bucket->struct_size must be "
                                 "sizeof(nnc_distributed_bucket_t)");
    const std::vector<rt::DataParallelBucket> &buckets =
        trainer->trainer->dataParallelStats().bucketList;
    if (index >= buckets.size())
      return makeStatus(NNC_STATUS_OUT_OF_RANGE, fn,
                        "bucket " + std::to_string(index) + " of " +
                            std::to_string(buckets.size()));
    const rt::DataParallelBucket &bucket = buckets[index];
    out->gradients = bucket.gradients;
    out->bytes = bucket.bytes;
    out->ready_step = bucket.readyStep;
    out->first_gradient = bucket.first.c_str();
    out->last_gradient = bucket.last.c_str();
    return nullptr;
  });
}

size_t nnc_trainer_output_count(const nnc_trainer_t *trainer) {
  if (!trainer)
    return 0;
  int64_t count = trainer->trainer->outputCount();
  return count < 0 ? 0 : static_cast<size_t>(count);
}

size_t nnc_trainer_parameter_count(const nnc_trainer_t *trainer) {
  return trainer ? trainer->slots.size() : 0;
}

nnc_status_t nnc_trainer_parameter(nnc_trainer_t *trainer, size_t index,
                                   const nnc_value_info_t **out_info,
                                   const nnc_tensor_t **out_value) {
  static const char *fn = "nnc_trainer_parameter";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    if (index >= trainer->slots.size())
      return outOfRange(fn, index, trainer->slots.size(), "parameters");
    if (out_info)
      *out_info = &trainer->slots[index]->info;
    if (out_value) {
      refreshViews(*trainer);
      *out_value = &trainer->slotViews[index];
    }
    return nullptr;
  });
}

int64_t nnc_trainer_step_count(const nnc_trainer_t *trainer) {
  return trainer ? trainer->trainer->steps() : 0;
}

nnc_status_t nnc_trainer_save_checkpoint(nnc_trainer_t *trainer,
                                         const char *path, size_t num_metadata,
                                         const char *const *metadata_keys,
                                         const char *const *metadata_values) {
  static const char *fn = "nnc_trainer_save_checkpoint";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    if (!path)
      return nullArgument(fn, "path");
    if (num_metadata && (!metadata_keys || !metadata_values))
      return nullArgument(fn, "metadata_keys/metadata_values");
    std::map<std::string, std::string> metadata;
    for (size_t i = 0; i < num_metadata; ++i) {
      if (!metadata_keys[i] || !metadata_values[i])
        return nullArgument(fn, "metadata entry");
      metadata[metadata_keys[i]] = metadata_values[i];
    }
    return convertStatus(fn, trainer->trainer->saveCheckpoint(path, metadata));
  });
}

nnc_status_t nnc_trainer_load_checkpoint(nnc_trainer_t *trainer,
                                         const char *path) {
  static const char *fn = "nnc_trainer_load_checkpoint";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    if (!path)
      return nullArgument(fn, "path");
    rt::Status status = trainer->trainer->loadCheckpoint(path);
    refreshViews(*trainer);
    return convertStatus(fn, status);
  });
}

const char *nnc_trainer_checkpoint_metadata(const nnc_trainer_t *trainer,
                                            const char *key) {
  if (!trainer || !key)
    return nullptr;
  const auto &metadata = trainer->trainer->loadedMetadata();
  auto it = metadata.find(key);
  return it == metadata.end() ? nullptr : it->second.c_str();
}

nnc_status_t nnc_trainer_load_file(const char *path,
                                   nnc_trainer_t **out_trainer) {
  static const char *fn = "nnc_trainer_load_file";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!path)
      return nullArgument(fn, "path");
    if (!out_trainer)
      return nullArgument(fn, "out_trainer");
    *out_trainer = nullptr;
    std::unique_ptr<rt::Trainer> trainer;
    rt::Status status = rt::loadTrainer(path, trainer);
    return loaded(fn, status, std::move(trainer), out_trainer);
  });
}

nnc_status_t nnc_trainer_load_memory(const void *data, size_t size,
                                     nnc_trainer_t **out_trainer) {
  static const char *fn = "nnc_trainer_load_memory";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!data && size)
      return nullArgument(fn, "data");
    if (!out_trainer)
      return nullArgument(fn, "out_trainer");
    *out_trainer = nullptr;
    std::unique_ptr<rt::Trainer> trainer;
    rt::Status status =
        rt::loadTrainerFromBytes(data, size, "<memory>", trainer);
    return loaded(fn, status, std::move(trainer), out_trainer);
  });
}

nnc_status_t nnc_trainer_prepare(nnc_trainer_t *trainer, size_t count,
                                 const nnc_tensor_t *const *data,
                                 int32_t with_eval, int32_t *out_compiled) {
  static const char *fn = "nnc_trainer_prepare";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    Batch batch;
    if (nnc_status_t s =
            checkBatch(fn, *trainer, count, data, trainer->data.size(), batch))
      return s;
    bool compiled = false;
    if (nnc_status_t s = convertStatus(
            fn, trainer->trainer->prepare(batch.key, with_eval != 0, compiled)))
      return s;
    if (out_compiled)
      *out_compiled = compiled ? 1 : 0;
    return nullptr;
  });
}

nnc_status_t nnc_trainer_enable_cuda_graph(nnc_trainer_t *trainer) {
  static const char *fn = "nnc_trainer_enable_cuda_graph";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    return convertStatus(fn, trainer->trainer->enableGraphReplay());
  });
}

nnc_status_t nnc_trainer_save(const nnc_trainer_t *trainer, const char *path) {
  static const char *fn = "nnc_trainer_save";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    if (!path)
      return nullArgument(fn, "path");
    return convertStatus(fn, trainer->trainer->save(path));
  });
}

void nnc_trainer_destroy(nnc_trainer_t *trainer) { delete trainer; }

} // extern "C"
