//===- NpyIO.h - NumPy .npy/.npz and CSV files ------------------*- C++ -*-===//
//
// Reads and writes the files people bring tensors in: NumPy's .npy (one
// array) and .npz (a ZIP of .npy entries, as numpy.savez writes it), and
// plain numeric CSV tables. Every input is validated before anything is
// allocated for it; errors name the file and what is wrong with it.
// docs/DataFormats.md lists what is accepted and what is rejected.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_NPYIO_H
#define NNC_RUNTIME_NPYIO_H

#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nnc::runtime {

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

/// Reads the .npy file at `path` (format 1.0, 2.0 or 3.0) into `out`.
/// Fortran-order arrays are transposed to C order.
Status readNpy(const std::string &path, HostTensor &out);

/// Parses an in-memory .npy image; `name` stands for it in errors.
Status parseNpy(const void *bytes, size_t size, const std::string &name,
                HostTensor &out);

/// Writes `tensor` to `path` as .npy (format 1.0; 2.0 only when the header
/// needs more than 65535 bytes), through a temporary file and a rename.
Status writeNpy(const std::string &path, const HostTensor &tensor);

/// Appends the .npy image of `tensor` to `out`.
Status serializeNpy(const HostTensor &tensor, std::vector<uint8_t> &out);

//===----------------------------------------------------------------------===//
// .npz
//===----------------------------------------------------------------------===//

struct NpzEntry {
  /// The archive member name without its ".npy" suffix, as numpy.load keys
  /// it. Only ever used as a key, never as a file system path.
  std::string name;
  HostTensor tensor;
};

/// Reads every entry of the .npz archive at `path`, in archive order. Only
/// stored (uncompressed) entries are accepted; each entry's CRC-32 is
/// checked.
Status readNpz(const std::string &path, std::vector<NpzEntry> &out);

/// Parses an in-memory .npz image; `name` stands for it in errors.
Status parseNpz(const void *bytes, size_t size, const std::string &name,
                std::vector<NpzEntry> &out);

struct NpzWriteOptions {
  /// Writes ZIP64 records even for small entries (testing; numpy reads both).
  bool forceZip64 = false;
};

/// Writes `entries` to `path` as an uncompressed .npz that numpy.load reads;
/// names must be unique and non-empty.
Status writeNpz(const std::string &path, const std::vector<NpzEntry> &entries,
                const NpzWriteOptions &options = {});

/// Appends the .npz image of `entries` to `out`.
Status serializeNpz(const std::vector<NpzEntry> &entries,
                    std::vector<uint8_t> &out,
                    const NpzWriteOptions &options = {});

/// `s` in single quotes with bytes outside printable ASCII as \xNN: how
/// errors show names and text taken from files.
std::string quoted(std::string_view s);

/// The CRC-32 (ISO-HDLC, as ZIP and zlib use it) of `size` bytes, continuing
/// from `crc` (0 to start).
uint32_t crc32(const void *bytes, size_t size, uint32_t crc = 0);

//===----------------------------------------------------------------------===//
// CSV
//===----------------------------------------------------------------------===//

struct CsvOptions {
  enum class Header { Auto, Present, Absent };
  /// Auto: the first row is a header when any of its fields is not a number.
  Header header = Header::Auto;
  char delimiter = ',';
};

/// Reads a numeric table into a 2-D f32 tensor of [rows, columns]. Blank
/// lines are skipped; every row must have the same number of fields. Errors
/// name the line and column. `headerNames`, when given, receives the header
/// fields (empty when there was no header).
Status readCsv(const std::string &path, const CsvOptions &options,
               HostTensor &out,
               std::vector<std::string> *headerNames = nullptr);

/// Parses in-memory CSV text; `name` stands for it in errors.
Status parseCsv(const std::string &text, const std::string &name,
                const CsvOptions &options, HostTensor &out,
                std::vector<std::string> *headerNames = nullptr);

} // namespace nnc::runtime

#endif // NNC_RUNTIME_NPYIO_H
