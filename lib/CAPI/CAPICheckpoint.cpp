//===- CAPICheckpoint.cpp - trainers: checkpoints -------------------------===//
//
// nnc_trainer_save_checkpoint / _load_checkpoint: everything a resumed run
// needs, in the runtime's verified checkpoint format, checked in full before
// anything changes.
//
//===----------------------------------------------------------------------===//

#include "nnc-c/nnc.h"

#include "Trainer.h"

#include "nnc/runtime/Checkpoint.h"
#include "nnc/runtime/Profiler.h"

#include "llvm/ADT/StringExtras.h"

#include <cstring>

using namespace mlir;
using namespace nnc::capi;
using namespace nnc::capi::train;

extern "C" {

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
    nnc_trainer_s &t = *trainer;
    if (t.microSteps != 0)
      return makeStatus(NNC_STATUS_INVALID_ARGUMENT, fn,
                        "in the middle of a gradient accumulation (" +
                            std::to_string(t.microSteps) + " of " +
                            std::to_string(t.options.accumulate) +
                            " micro-batches); checkpoints are taken between "
                            "optimizer steps");
    rt::Checkpoint checkpoint;
    for (size_t i = 0; i < num_metadata; ++i) {
      if (!metadata_keys[i] || !metadata_values[i])
        return nullArgument(fn, "metadata entry");
      std::string key = std::string("user.") + metadata_keys[i];
      checkpoint.setString(key, metadata_values[i]);
    }
    checkpoint.setString("nnc.fingerprint", t.fingerprint);
    checkpoint.setInt("nnc.step", t.steps);
    checkpoint.setString("nnc.draws", std::to_string(t.draws));
    checkpoint.setString("nnc.seed", std::to_string(t.options.seed));
    t.scaler.save(checkpoint.metadata, "nnc.loss_scaler.");
    for (Slot &slot : t.slots) {
      rt::NpzEntry entry;
      entry.name = slot.info->name;
      if (nnc_status_t s = copyToHost(fn, *slot.value, entry.tensor))
        return s;
      checkpoint.tensors.push_back(std::move(entry));
    }
    for (size_t k = 0; k < t.state.size(); ++k) {
      rt::NpzEntry entry;
      entry.name = "optimizer." + t.stateNames[k];
      rt::Status status = rt::HostTensor::create(
          t.state[k].dtype(), t.state[k].shape(), entry.tensor);
      if (!status.isOk())
        return convertStatus(fn, status);
      if (entry.tensor.sizeInBytes())
        std::memcpy(entry.tensor.data(), t.state[k].data(),
                    entry.tensor.sizeInBytes());
      checkpoint.tensors.push_back(std::move(entry));
    }
    rt::ProfileScope profile("io", "checkpoint write");
    return convertStatus(fn, rt::writeCheckpoint(path, checkpoint));
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
    nnc_trainer_s &t = *trainer;
    rt::Checkpoint checkpoint;
    if (nnc_status_t s =
            convertStatus(fn, rt::readCheckpoint(path, checkpoint)))
      return s;
    std::string fingerprint;
    if (nnc_status_t s = convertStatus(
            fn, checkpoint.getString("nnc.fingerprint", fingerprint)))
      return s;
    if (fingerprint != t.fingerprint)
      return invalidArgument(
          fn, std::string("checkpoint ") + path +
                  " was written for another model or training configuration "
                  "(loss, optimizer and its settings must match)");
    int64_t steps = 0;
    if (nnc_status_t s =
            convertStatus(fn, checkpoint.getInt("nnc.step", steps)))
      return s;
    if (steps < 0)
      return makeStatus(NNC_STATUS_DATA_LOSS, fn,
                        std::string("checkpoint ") + path +
                            ": negative step count");
    rt::LossScaler scaler;
    if (nnc_status_t s = convertStatus(
            fn, scaler.load(checkpoint.metadata, "nnc.loss_scaler.")))
      return s;
    std::string drawsText;
    if (nnc_status_t s =
            convertStatus(fn, checkpoint.getString("nnc.draws", drawsText)))
      return s;
    uint64_t draws = 0;
    if (!llvm::to_integer(drawsText, draws, 10))
      return makeStatus(NNC_STATUS_DATA_LOSS, fn,
                        std::string("checkpoint ") + path +
                            ": nnc.draws is not a count");
    // Everything is checked before anything changes.
    std::vector<const rt::HostTensor *> slotValues, stateValues;
    for (Slot &slot : t.slots) {
      const rt::HostTensor *value = nullptr;
      if (nnc_status_t s = convertStatus(
              fn, rt::checkCheckpointTensor(checkpoint, slot.info->name,
                                            toRuntime(slot.info->info.dtype),
                                            slot.info->dims, &value)))
        return s;
      slotValues.push_back(value);
    }
    for (size_t k = 0; k < t.state.size(); ++k) {
      const rt::HostTensor *value = nullptr;
      if (nnc_status_t s = convertStatus(
              fn, rt::checkCheckpointTensor(
                      checkpoint, "optimizer." + t.stateNames[k],
                      t.state[k].dtype(), t.state[k].shape(), &value)))
        return s;
      stateValues.push_back(value);
    }
    for (size_t i = 0; i < t.slots.size(); ++i)
      if (slotValues[i]->sizeInBytes())
        std::memcpy(t.slots[i].value->data, slotValues[i]->data(),
                    slotValues[i]->sizeInBytes());
    for (size_t k = 0; k < t.state.size(); ++k)
      if (stateValues[k]->sizeInBytes())
        std::memcpy(t.state[k].data(), stateValues[k]->data(),
                    stateValues[k]->sizeInBytes());
    t.steps = steps;
    t.draws = draws;
    t.scaler = scaler;
    t.microSteps = 0;
    t.accumulated.clear();
    t.loadedMetadata.clear();
    for (const auto &[key, value] : checkpoint.metadata)
      if (llvm::StringRef(key).starts_with("user."))
        t.loadedMetadata[key.substr(5)] = value;
    return nullptr;
  });
}

const char *nnc_trainer_checkpoint_metadata(const nnc_trainer_t *trainer,
                                            const char *key) {
  if (!trainer || !key)
    return nullptr;
  auto it = trainer->loadedMetadata.find(key);
  return it == trainer->loadedMetadata.end() ? nullptr : it->second.c_str();
}

} // extern "C"
