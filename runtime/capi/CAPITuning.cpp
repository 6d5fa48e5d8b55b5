//===- CAPITuning.cpp - tuning databases in the C API ---------------------===//
//
// Implements nnc_tuning_database_default_path and nnc_tuning_database_merge
// of include/nnc-c/runtime.h on the runtime's TuningDatabase.
//
//===----------------------------------------------------------------------===//

#include "nnc-c/runtime.h"

#include "Handles.h"

#include "nnc/runtime/TuningDatabase.h"

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <sys/stat.h>

using namespace nnc::capi;

extern "C" {

nnc_status_t nnc_tuning_database_default_path(char **out_path) {
  static const char *fn = "nnc_tuning_database_default_path";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!out_path)
      return nullArgument(fn, "out_path");
    *out_path = nullptr;
    std::string dir = rt::defaultCacheDir();
    if (dir.empty())
      return makeStatus(NNC_STATUS_NOT_FOUND, fn,
                        "there is no default cache folder: none of "
                        "NNC_CACHE_DIR, XDG_CACHE_HOME and HOME is set");
    if (!(*out_path = copyString(dir + "/" + rt::kTuningDatabaseFile)))
      return &outOfMemoryStatus();
    return nullptr;
  });
}

nnc_status_t nnc_tuning_database_merge(const char *from, const char *into,
                                       size_t *out_merged,
                                       char **out_warnings) {
  static const char *fn = "nnc_tuning_database_merge";
  return guarded(fn, [&]() -> nnc_status_t {
    if (out_merged)
      *out_merged = 0;
    if (out_warnings)
      *out_warnings = nullptr;
    if (!from)
      return nullArgument(fn, "from");
    if (!into)
      return nullArgument(fn, "into");
    // A missing database reads as an empty one, which is right for the
    // autotuner; merging from a file that is not there is a mistake.
    struct stat st;
    if (::stat(from, &st) != 0)
      return makeStatus(NNC_STATUS_NOT_FOUND, fn,
                        std::string("no tuning database at ") + from);
    rt::TuningDatabase source;
    if (rt::Status status = rt::TuningDatabase::open(from, source);
        !status.isOk())
      return convertStatus(fn, status);
    if (!source.writeable())
      return invalidArgument(
          fn, std::string(from) + " is not a tuning database of this nnc: " +
                  (source.warnings().empty() ? std::string("unreadable")
                                             : source.warnings().front()));
    // A deployment's cache folder may not exist yet.
    std::filesystem::path parent = std::filesystem::path(into).parent_path();
    std::error_code error;
    if (!parent.empty() && !std::filesystem::is_directory(parent, error) &&
        !std::filesystem::create_directories(parent, error))
      return makeStatus(NNC_STATUS_UNAVAILABLE, fn,
                        "cannot make the folder " + parent.string() +
                            " for " + into + ": " + error.message());
    std::vector<std::string> warnings = source.warnings();
    if (rt::Status status =
            rt::TuningDatabase::merge(into, source.entries(), &warnings);
        !status.isOk())
      return convertStatus(fn, status);
    if (out_merged)
      *out_merged = source.entries().size();
    if (out_warnings) {
      std::string text;
      for (const std::string &warning : warnings)
        text += warning + "\n";
      if (!(*out_warnings = copyString(text)))
        return &outOfMemoryStatus();
    }
    return nullptr;
  });
}

} // extern "C"
