//===- CAPIData.cpp - .npz archives of the C API --------------------------===//
//
// Implements nnc_npz_read / nnc_npz_write of include/nnc-c/runtime.h on the
// runtime's NumPy I/O, plus the release functions for the strings and arrays
// the C API hands out. Everything is built before anything is handed out.
//
//===----------------------------------------------------------------------===//

#include "nnc-c/runtime.h"

#include "Handles.h"

#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/NpyIO.h"

#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace nnc::capi;

extern "C" {

void nnc_string_destroy(char *string) { std::free(string); }

void nnc_array_destroy(void *array) { std::free(array); }

nnc_status_t nnc_npz_read(const char *path, size_t *out_count,
                          char ***out_names, nnc_tensor_t ***out_tensors) {
  static const char *fn = "nnc_npz_read";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!path)
      return nullArgument(fn, "path");
    if (!out_count)
      return nullArgument(fn, "out_count");
    if (!out_names)
      return nullArgument(fn, "out_names");
    if (!out_tensors)
      return nullArgument(fn, "out_tensors");
    std::vector<rt::NpzEntry> entries;
    if (nnc_status_t status = convertStatus(fn, rt::readNpz(path, entries)))
      return status;

    // Everything is built first and handed out only when it all succeeded.
    std::vector<std::unique_ptr<nnc_tensor_s>> tensors;
    for (rt::NpzEntry &entry : entries)
      tensors.push_back(makeOwnedTensor(std::move(entry.tensor)));
    size_t count = entries.size();
    std::unique_ptr<char *, decltype(&std::free)> names(nullptr, &std::free);
    std::unique_ptr<nnc_tensor_t *, decltype(&std::free)> handles(nullptr,
                                                                  &std::free);
    if (count) {
      names.reset(static_cast<char **>(std::calloc(count, sizeof(char *))));
      handles.reset(
          static_cast<nnc_tensor_t **>(std::calloc(count, sizeof(void *))));
      if (!names || !handles)
        return &outOfMemoryStatus();
    }
    for (size_t i = 0; i < count; ++i) {
      names.get()[i] = copyString(entries[i].name);
      if (!names.get()[i]) {
        for (size_t j = 0; j < i; ++j)
          std::free(names.get()[j]);
        return &outOfMemoryStatus();
      }
    }
    for (size_t i = 0; i < count; ++i)
      handles.get()[i] = tensors[i].release();
    *out_count = count;
    *out_names = names.release();
    *out_tensors = handles.release();
    return nullptr;
  });
}

nnc_status_t nnc_npz_write(const char *path, size_t count,
                           const char *const *names,
                           const nnc_tensor_t *const *tensors) {
  static const char *fn = "nnc_npz_write";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!path)
      return nullArgument(fn, "path");
    if (count && !names)
      return nullArgument(fn, "names");
    if (count && !tensors)
      return nullArgument(fn, "tensors");
    std::set<std::string> seen;
    for (size_t i = 0; i < count; ++i) {
      std::string index = "[" + std::to_string(i) + "]";
      if (!names[i])
        return nullArgument(fn, ("names" + index).c_str());
      if (!*names[i])
        return invalidArgument(fn, "argument 'names" + index + "' is empty");
      if (!seen.insert(names[i]).second)
        return invalidArgument(fn, "argument 'names" + index + "' ('" +
                                       names[i] + "') is not unique");
      if (!tensors[i])
        return nullArgument(fn, ("tensors" + index).c_str());
    }
    // The writer takes HostTensors; copy views and owned tensors alike
    // (tensors are borrowed, so their storage cannot be moved).
    std::vector<rt::NpzEntry> entries(count);
    for (size_t i = 0; i < count; ++i) {
      const nnc_tensor_s &tensor = *tensors[i];
      entries[i].name = names[i];
      if (nnc_status_t status = copyToHost(fn, tensor, entries[i].tensor))
        return status;
    }
    return convertStatus(fn, rt::writeNpz(path, entries));
  });
}

} // extern "C"
