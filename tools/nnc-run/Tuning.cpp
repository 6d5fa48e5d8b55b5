//===- Tuning.cpp - nnc-run tuning: carry a tuning database ---------------===//
//
// `nnc-run tuning export FILE` and `nnc-run tuning import FILE`: the
// autotuner's database (docs/Autotuning.md) merged into another file or
// from one, through nnc_tuning_database_merge of the runtime's C API, so a
// deployment can take the tuning of the machine it was measured on.
//
//===----------------------------------------------------------------------===//

#include "Tuning.h"

#include "../common/ArgHelpers.h"
#include "../common/CAPIHelpers.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace {

constexpr const char *kUsage =
    R"(usage: nnc-run tuning export FILE [--tuning-db DB | --cache-dir DIR]
       nnc-run tuning import FILE [--tuning-db DB | --cache-dir DIR]

  export   adds the entries of the tuning database (the autotuner's
           measured kernel choices) to FILE: a new file, or another
           database whose other entries are kept
  import   adds the entries of FILE (an exported database) to the tuning
           database, replacing those with the same keys
  --tuning-db DB   the database (default: tuning.nnctune in the compile
                   cache folder)
  --cache-dir DIR  the compile cache folder whose tuning.nnctune is meant
                   (default: $NNC_CACHE_DIR, else $XDG_CACHE_HOME/nnc, else
                   $HOME/.cache/nnc)

An entry's key covers the kernel, the machine (CPU model and features,
threads, OpenBLAS and oneDNN) and the nnc that measured it: a database
imported on another kind of machine is kept, and used only where the keys
match. Damaged lines are dropped with a warning. docs/Autotuning.md
)";

int fail(const std::string &message, int status) {
  std::fprintf(stderr, "nnc-run: error: %s\n", message.c_str());
  return status;
}

} // namespace

int nnc::tools::runTuning(int argc, char **argv) {
  std::string action, file, database, cacheDir;
  bool hasDatabase = false, hasCacheDir = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      std::string name = arg.substr(0, arg.find('='));
      if (name != "--tuning-db" && name != "--cache-dir")
        return fail("unknown option '" + arg +
                        "' (see nnc-run tuning --help)",
                    2);
      std::string value;
      if (!takeOptionValue(argc, argv, i, name, value))
        return fail("option '" + name + "' needs a value", 2);
      bool &given = name == "--tuning-db" ? hasDatabase : hasCacheDir;
      if (given)
        return fail("option '" + name + "' given twice", 2);
      given = true;
      (name == "--tuning-db" ? database : cacheDir) = value;
      continue;
    }
    if (action.empty())
      action = arg;
    else if (file.empty())
      file = arg;
    else
      return fail("unexpected argument '" + arg +
                      "' (see nnc-run tuning --help)",
                  2);
  }
  if (action != "export" && action != "import")
    return fail(action.empty() ? "nnc-run tuning needs export or import "
                                 "(see nnc-run tuning --help)"
                               : "unknown action '" + action +
                                     "': export or import",
                2);
  if (file.empty())
    return fail("nnc-run tuning " + action + " needs a FILE", 2);
  if (hasDatabase && hasCacheDir)
    return fail("--tuning-db and --cache-dir name the same thing: give one",
                2);
  if ((hasDatabase && database.empty()) || (hasCacheDir && cacheDir.empty()))
    return fail(std::string(hasDatabase ? "--tuning-db" : "--cache-dir") +
                    " is empty",
                2);
  if (hasCacheDir) {
    // The runtime's kTuningDatabaseFile: this tool sees the C API alone.
    database = cacheDir + "/tuning.nnctune";
  } else if (!hasDatabase) {
    char *path = nullptr;
    if (nnc_status_t status = nnc_tuning_database_default_path(&path))
      return fail(takeMessage(status) + " (give --tuning-db)", 1);
    database = path;
    nnc_string_destroy(path);
  }

  bool exporting = action == "export";
  const std::string &from = exporting ? database : file;
  const std::string &into = exporting ? file : database;
  size_t merged = 0;
  char *warnings = nullptr;
  nnc_status_t status = nnc_tuning_database_merge(from.c_str(), into.c_str(),
                                                  &merged, &warnings);
  if (status)
    return fail(takeMessage(status), 1);
  // One warning per line.
  for (const char *line = warnings; line && *line;) {
    const char *end = std::strchr(line, '\n');
    size_t length = end ? static_cast<size_t>(end - line) : std::strlen(line);
    std::fprintf(stderr, "nnc-run: warning: %.*s\n", static_cast<int>(length),
                 line);
    line += length + (end ? 1 : 0);
  }
  nnc_string_destroy(warnings);
  std::printf("%s %zu tuning %s from %s into %s\n",
              exporting ? "exported" : "imported", merged,
              merged == 1 ? "entry" : "entries", from.c_str(), into.c_str());
  return 0;
}
