//===- SavedTrainer.cpp - trainers as executable files --------------------===//
//
// Trainer::save and loadTrainer. A saved trainer is an executable
// (docs/Executable.md) of "other" sections: "nnc.trainer", a checkpoint
// image (docs/DataFormats.md) holding the state and, in its metadata, what
// the trainer is (trainer.*: signature, schedule, accumulation, the layout
// of the functions), and "program.<n>", one executable per compiled
// function and data shapes, as trainer.program.<n> describes it. Everything
// is verified before anything is used.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Trainer.h"

#include "nnc/runtime/Checkpoint.h"
#include "nnc/runtime/Device.h"
#include "nnc/runtime/Executable.h"

#include <sstream>

namespace nnc::runtime {

namespace {

constexpr const char *kTrainerSection = "nnc.trainer";
constexpr int64_t kSavedTrainerVersion = 1;

std::string dimsText(const std::vector<int64_t> &dims) {
  std::string text;
  for (size_t d = 0; d < dims.size(); ++d)
    text += (d ? "," : "") + std::to_string(dims[d]);
  return text;
}

/// "f32:[2,3]" per shape, ';' between: a key of data shapes.
std::string keyText(const Shapes &key) {
  std::string text;
  for (size_t i = 0; i < key.size(); ++i)
    text += (i ? ";" : "") + std::string("[") + dimsText(key[i]) + "]";
  return text;
}

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos)
      return parts;
    start = end + 1;
  }
}

/// The layout as text, one record per line, fields separated by tabs:
///   slot <kind> <dtype> <dims> <name>
///   trainable <slot>
///   data <kind> <dtype> <dims> <name>
///   state <name>
///   copytype <dtype> (when a function takes low-precision copies)
///   function <kind> <name>, then its arg <source> <index> and
///   result <sink> <index> lines
/// Kinds, sources and sinks are the numbers of their enums; dims are
/// comma-separated.
Status layoutText(const TrainerSpec &spec, const TrainLayout &layout,
                  std::string &out) {
  std::ostringstream os;
  auto name = [&](const std::string &text) -> Status {
    if (text.find_first_of("\t\n") != std::string::npos)
      return Status(StatusCode::InvalidArgument,
                    "the name '" + text +
                        "' holds a tab or a newline; a trainer with it "
                        "cannot be saved");
    os << text << "\n";
    return Status::ok();
  };
  auto value = [&](const char *tag, const TrainValue &v) -> Status {
    os << tag << "\t" << static_cast<int>(v.kind) << "\t" << dtypeName(v.dtype)
       << "\t" << dimsText(v.dims) << "\t";
    return name(v.name);
  };
  for (const TrainValue &v : spec.slots)
    NNC_RUNTIME_RETURN_IF_ERROR(value("slot", v));
  for (unsigned n : spec.trainable)
    os << "trainable\t" << n << "\n";
  for (const TrainValue &v : spec.data)
    NNC_RUNTIME_RETURN_IF_ERROR(value("data", v));
  for (const std::string &state : spec.stateNames) {
    os << "state\t";
    NNC_RUNTIME_RETURN_IF_ERROR(name(state));
  }
  bool copies = false;
  for (const TrainFunction &f : layout.functions)
    for (const TrainBinding &b : f.arguments)
      copies |= b.source == TrainSource::Copy;
  if (copies)
    os << "copytype\t" << dtypeName(spec.copyType) << "\n";
  for (unsigned k = 0; k < kNumTrainFunctionKinds; ++k) {
    const TrainFunction &f = layout.functions[k];
    os << "function\t" << k << "\t";
    NNC_RUNTIME_RETURN_IF_ERROR(name(f.name));
    for (const TrainBinding &b : f.arguments)
      os << "arg\t" << static_cast<int>(b.source) << "\t" << b.index << "\n";
    for (const TrainResult &r : f.results)
      os << "result\t" << static_cast<int>(r.sink) << "\t" << r.index << "\n";
  }
  out = os.str();
  return Status::ok();
}

class LayoutParser {
public:
  LayoutParser(std::string source) : source_(std::move(source)) {}

  Status parse(const std::string &text, TrainerSpec &spec,
               TrainLayout &layout) {
    std::vector<std::string> lines = split(text, '\n');
    if (!lines.empty() && lines.back().empty())
      lines.pop_back();
    int function = -1;
    bool seen[kNumTrainFunctionKinds] = {};
    for (size_t i = 0; i < lines.size(); ++i) {
      line_ = i + 1;
      std::vector<std::string> f = split(lines[i], '\t');
      const std::string &tag = f[0];
      if ((tag == "slot" || tag == "data") && f.size() == 5) {
        TrainValue v;
        int64_t kind = 0;
        NNC_RUNTIME_RETURN_IF_ERROR(number(f[1], 4, kind));
        v.kind = static_cast<ValueKind>(kind);
        NNC_RUNTIME_RETURN_IF_ERROR(dtype(f[2], v.dtype));
        NNC_RUNTIME_RETURN_IF_ERROR(dims(f[3], tag == "data", v.dims));
        v.name = f[4];
        (tag == "slot" ? spec.slots : spec.data).push_back(std::move(v));
      } else if (tag == "trainable" && f.size() == 2) {
        int64_t n = 0;
        NNC_RUNTIME_RETURN_IF_ERROR(
            number(f[1], static_cast<int64_t>(spec.slots.size()) - 1, n));
        spec.trainable.push_back(static_cast<unsigned>(n));
      } else if (tag == "state" && f.size() == 2) {
        spec.stateNames.push_back(f[1]);
      } else if (tag == "copytype" && f.size() == 2) {
        NNC_RUNTIME_RETURN_IF_ERROR(dtype(f[1], spec.copyType));
        if (spec.copyType != DType::F16 && spec.copyType != DType::BF16)
          return bad("copies of element type '" + f[1] +
                     "'; expected f16 or bf16");
        copyType = true;
      } else if (tag == "function" && f.size() == 3) {
        int64_t k = 0;
        NNC_RUNTIME_RETURN_IF_ERROR(
            number(f[1], kNumTrainFunctionKinds - 1, k));
        if (seen[k])
          return bad("function " + f[1] + " appears twice");
        seen[k] = true;
        function = static_cast<int>(k);
        layout.functions[k].name = f[2];
      } else if ((tag == "arg" || tag == "result") && f.size() == 3) {
        if (function < 0)
          return bad("'" + tag + "' before any function");
        int64_t what = 0, index = 0;
        NNC_RUNTIME_RETURN_IF_ERROR(
            number(f[1], static_cast<int64_t>(TrainSource::Copy), what));
        NNC_RUNTIME_RETURN_IF_ERROR(number(f[2], 1 << 30, index));
        TrainFunction &fn = layout.functions[function];
        if (tag == "arg") {
          fn.arguments.push_back(
              {static_cast<TrainSource>(what), static_cast<unsigned>(index)});
          NNC_RUNTIME_RETURN_IF_ERROR(checkArgument(spec, fn.arguments.back()));
        } else {
          if (what > static_cast<int64_t>(TrainSink::Copy))
            return bad("unknown result kind " + f[1]);
          fn.results.push_back(
              {static_cast<TrainSink>(what), static_cast<unsigned>(index)});
          NNC_RUNTIME_RETURN_IF_ERROR(checkResult(spec, fn.results.back()));
        }
      } else {
        return bad("unexpected record '" + tag + "'");
      }
    }
    for (unsigned k = 0; k < kNumTrainFunctionKinds; ++k)
      if (!seen[k])
        return fail(std::string("the layout has no ") +
                    trainFunctionKindName(static_cast<TrainFunctionKind>(k)) +
                    " function");
    if (spec.data.empty())
      return fail("the layout has no data");
    return Status::ok();
  }

private:
  Status fail(const std::string &what) const {
    return Status(StatusCode::DataLoss, source_ + ": " + what);
  }
  Status bad(const std::string &what) const {
    return fail("layout line " + std::to_string(line_) + ": " + what);
  }
  Status number(const std::string &text, int64_t max, int64_t &out) const {
    if (!parseInt64(text, "a layout field", out).isOk() || out < 0 || out > max)
      return bad("'" + text + "' is not a number from 0 to " +
                 std::to_string(max));
    return Status::ok();
  }
  Status dtype(const std::string &text, DType &out) const {
    for (size_t d = 0; d < kNumDTypes; ++d)
      if (text == dtypeName(static_cast<DType>(d))) {
        out = static_cast<DType>(d);
        return Status::ok();
      }
    return bad("unknown element type '" + text + "'");
  }
  Status dims(const std::string &text, bool allowFree,
              std::vector<int64_t> &out) const {
    if (text.empty())
      return Status::ok();
    for (const std::string &part : split(text, ',')) {
      int64_t d = 0;
      if (!parseInt64(part, "a dimension", d).isOk() ||
          d < (allowFree ? -1 : 0))
        return bad("'" + text + "' is not a list of dimensions");
      out.push_back(d);
    }
    return Status::ok();
  }
  Status checkArgument(const TrainerSpec &spec, const TrainBinding &b) const {
    size_t limit = 1;
    switch (b.source) {
    case TrainSource::Data:
      limit = spec.data.size();
      break;
    case TrainSource::Slot:
      limit = spec.slots.size();
      break;
    case TrainSource::Copy:
      if (!copyType)
        return bad("a low-precision copy before its 'copytype'");
      limit = spec.slots.size();
      break;
    case TrainSource::State:
      limit = spec.stateNames.size();
      break;
    case TrainSource::Gradient:
      limit = spec.trainable.size();
      break;
    case TrainSource::Seed:
    case TrainSource::LossScale:
    case TrainSource::Lr:
      break;
    }
    if (b.index >= limit)
      return bad("argument index " + std::to_string(b.index) +
                 " is out of range");
    return Status::ok();
  }
  Status checkResult(const TrainerSpec &spec, const TrainResult &r) const {
    size_t limit = 1;
    switch (r.sink) {
    case TrainSink::Slot:
    case TrainSink::Copy:
      limit = spec.slots.size();
      break;
    case TrainSink::State:
      limit = spec.stateNames.size();
      break;
    case TrainSink::Gradient:
      limit = spec.trainable.size();
      break;
    case TrainSink::Ignore:
    case TrainSink::Loss:
    case TrainSink::Found:
      break;
    }
    if (r.index >= limit)
      return bad("result index " + std::to_string(r.index) +
                 " is out of range");
    return Status::ok();
  }

  std::string source_;
  size_t line_ = 0;
  bool copyType = false; // a copytype record was read
};

Status parseKey(const std::string &text, const std::string &what, Shapes &out) {
  out.clear();
  if (text.empty())
    return Status::ok();
  for (const std::string &part : split(text, ';')) {
    if (part.size() < 2 || part.front() != '[' || part.back() != ']')
      return Status(StatusCode::DataLoss,
                    what + ": '" + text + "' is not a list of shapes");
    std::vector<int64_t> dims;
    std::string inner = part.substr(1, part.size() - 2);
    if (!inner.empty())
      for (const std::string &d : split(inner, ',')) {
        int64_t n = 0;
        if (!parseInt64(d, what, n).isOk() || n < 0)
          return Status(StatusCode::DataLoss,
                        what + ": '" + text + "' is not a list of shapes");
        dims.push_back(n);
      }
    out.push_back(std::move(dims));
  }
  return Status::ok();
}

/// The programs of a saved trainer: it makes none.
class SavedProgramSource final : public TrainProgramSource {
public:
  SavedProgramSource(std::string source, TrainLayout layout)
      : source_(std::move(source)), layout_(std::move(layout)) {}

  Status prepare(const Shapes &) override { return Status::ok(); }
  const TrainLayout *layout() const override { return &layout_; }
  Status program(TrainFunctionKind kind, const Shapes &key, const Shapes &,
                 TrainProgram &out, bool &compiled) override {
    compiled = false;
    const auto &programs = programs_[static_cast<unsigned>(kind)];
    auto it = programs.find(key);
    if (it != programs.end()) {
      out = {it->second.get(), 0, 0.0, false};
      return Status::ok();
    }
    std::string have;
    for (const auto &[shapes, program] : programs)
      have +=
          (have.empty() ? "" : ", ") + std::string("{") + keyText(shapes) + "}";
    return Status(StatusCode::NotFound,
                  "the saved trainer " + source_ + " has no " +
                      trainFunctionKindName(kind) +
                      " program for data of shapes {" + keyText(key) +
                      "}; it has " +
                      (have.empty() ? std::string("none") : have) +
                      (kind == TrainFunctionKind::Grad && have.empty()
                           ? " (accumulation and data-parallel training run "
                             "the grad and apply programs: save the trainer "
                             "from a run that used them)"
                           : " (save it from a trainer that prepared those "
                             "shapes)"));
  }
  std::vector<Entry> programs() const override {
    std::vector<Entry> entries;
    for (unsigned k = 0; k < kNumTrainFunctionKinds; ++k)
      for (const auto &[key, program] : programs_[k])
        entries.push_back({static_cast<TrainFunctionKind>(k), key,
                           TrainProgram{program.get(), 0, 0.0, false}});
    return entries;
  }

  Status enableGraphReplay() override {
    for (auto &byKey : programs_)
      for (auto &[key, program] : byKey)
        NNC_RUNTIME_RETURN_IF_ERROR(program->enableGraphReplay());
    return Status::ok();
  }

  Status add(TrainFunctionKind kind, Shapes key,
             std::unique_ptr<Program> program) {
    auto &slot = programs_[static_cast<unsigned>(kind)][std::move(key)];
    if (slot)
      return Status(StatusCode::DataLoss,
                    source_ + ": two " +
                        std::string(trainFunctionKindName(kind)) +
                        " programs for the same shapes");
    slot = std::move(program);
    return Status::ok();
  }

private:
  std::string source_;
  TrainLayout layout_;
  /// Per function kind, by data shapes.
  std::map<Shapes, std::unique_ptr<Program>> programs_[kNumTrainFunctionKinds];
};

Status loadFromReader(ExecutableReader reader, const std::string &source,
                      std::unique_ptr<Trainer> &out) {
  const SectionRef *section = reader.findSection(kTrainerSection);
  if (!section || section->kind != SectionKind::Other)
    return Status(StatusCode::InvalidArgument,
                  source +
                      " is the executable of one function, not a saved "
                      "trainer (it has no " +
                      kTrainerSection + " section)");
  Checkpoint checkpoint;
  NNC_RUNTIME_RETURN_IF_ERROR(
      parseCheckpoint(section->data, section->size, source, checkpoint));
  int64_t version = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(checkpoint.getInt("trainer.version", version));
  if (version != kSavedTrainerVersion)
    return Status(StatusCode::InvalidArgument,
                  source + " is a saved trainer of version " +
                      std::to_string(version) + "; this nnc reads version " +
                      std::to_string(kSavedTrainerVersion));
  TrainerSpec spec;
  TrainLayout layout;
  std::string text;
  NNC_RUNTIME_RETURN_IF_ERROR(checkpoint.getString("trainer.layout", text));
  NNC_RUNTIME_RETURN_IF_ERROR(LayoutParser(source).parse(text, spec, layout));
  NNC_RUNTIME_RETURN_IF_ERROR(
      checkpoint.getString("trainer.model", spec.modelName));
  NNC_RUNTIME_RETURN_IF_ERROR(
      checkpoint.getString("nnc.fingerprint", spec.fingerprint));
  std::string lossType;
  NNC_RUNTIME_RETURN_IF_ERROR(
      checkpoint.getString("trainer.loss_type", lossType));
  if (lossType != "f32" && lossType != "f64")
    return Status(StatusCode::DataLoss, source + ": the loss type '" +
                                            lossType + "' is not f32 or f64");
  spec.lossType = lossType == "f64" ? DType::F64 : DType::F32;
  NNC_RUNTIME_RETURN_IF_ERROR(checkpoint.getString("trainer.loss", spec.loss));
  if (spec.loss != "cross_entropy" && spec.loss != "nll" && spec.loss != "mse")
    return Status(StatusCode::DataLoss,
                  source + ": unknown loss '" + spec.loss + "'");
  int64_t lossOutput = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(
      checkpoint.getInt("trainer.loss_output", lossOutput));
  size_t outputs = layout[TrainFunctionKind::Eval].results.size();
  if (lossOutput < 0 || static_cast<size_t>(lossOutput) >= outputs)
    return Status(StatusCode::DataLoss,
                  source + ": trainer.loss_output " +
                      std::to_string(lossOutput) + " is not one of the " +
                      std::to_string(outputs) + " outputs");
  spec.lossOutput = static_cast<unsigned>(lossOutput);
  NNC_RUNTIME_RETURN_IF_ERROR(
      checkpoint.getInt("trainer.classes", spec.classes));
  if (checkpoint.metadata.count("trainer.ignore_index")) {
    spec.hasIgnoreIndex = true;
    NNC_RUNTIME_RETURN_IF_ERROR(
        checkpoint.getInt("trainer.ignore_index", spec.ignoreIndex));
  }
  if (checkpoint.metadata.count("trainer.updates_in_backward")) {
    int64_t inBackward = 0;
    NNC_RUNTIME_RETURN_IF_ERROR(
        checkpoint.getInt("trainer.updates_in_backward", inBackward));
    spec.updatesInBackward = inBackward != 0;
  }
  std::string schedule;
  NNC_RUNTIME_RETURN_IF_ERROR(
      checkpoint.getString("trainer.schedule", schedule));
  NNC_RUNTIME_RETURN_IF_ERROR(
      checkpoint.getDouble("trainer.learning_rate", spec.schedule.lr));
  Status parsed = parseLrSchedule(schedule, spec.schedule);
  if (!parsed.isOk())
    return Status(StatusCode::DataLoss, source + ": " + parsed.message());
  NNC_RUNTIME_RETURN_IF_ERROR(
      checkpoint.getInt("trainer.accumulate", spec.accumulate));
  NNC_RUNTIME_RETURN_IF_ERROR(
      spec.scaler.load(checkpoint.metadata, "trainer.loss_scaler."));
  std::string seed;
  NNC_RUNTIME_RETURN_IF_ERROR(checkpoint.getString("nnc.seed", seed));
  // Any uint64, in decimal.
  spec.seed = 0;
  bool seedOk = !seed.empty() && seed.size() <= 20;
  for (char c : seed) {
    seedOk = seedOk && c >= '0' && c <= '9';
    uint64_t digit = static_cast<uint64_t>(c - '0');
    seedOk = seedOk && spec.seed <= (UINT64_MAX - digit) / 10;
    if (seedOk)
      spec.seed = spec.seed * 10 + digit;
  }
  if (!seedOk)
    return Status(StatusCode::DataLoss,
                  source + ": nnc.seed '" + seed + "' is not a seed");

  // The state: zeros of the right shapes, then the checkpoint's values.
  // Each slot's value must be in the checkpoint, of the layout's dtype and
  // shape, before any memory is sized from the layout: a damaged layout
  // must not allocate more than the file holds.
  std::vector<HostTensor> slots, state;
  for (const TrainValue &v : spec.slots) {
    NNC_RUNTIME_RETURN_IF_ERROR(
        checkCheckpointTensor(checkpoint, v.name, v.dtype, v.dims));
    HostTensor tensor;
    NNC_RUNTIME_RETURN_IF_ERROR(HostTensor::create(v.dtype, v.dims, tensor));
    slots.push_back(std::move(tensor));
  }
  for (const std::string &name : spec.stateNames) {
    const HostTensor *value = checkpoint.find("optimizer." + name);
    if (!value)
      return Status(StatusCode::DataLoss,
                    source + ": no optimizer state 'optimizer." + name + "'");
    HostTensor tensor;
    NNC_RUNTIME_RETURN_IF_ERROR(
        HostTensor::create(value->dtype(), value->shape(), tensor));
    state.push_back(std::move(tensor));
  }

  auto programs = std::make_unique<SavedProgramSource>(source, layout);
  int64_t count = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(checkpoint.getInt("trainer.programs", count));
  if (count < 1 || count > static_cast<int64_t>(reader.sections().size()))
    return Status(StatusCode::DataLoss,
                  source + ": trainer.programs is " + std::to_string(count));
  for (int64_t n = 0; n < count; ++n) {
    std::string name = "program." + std::to_string(n);
    std::string description;
    NNC_RUNTIME_RETURN_IF_ERROR(
        checkpoint.getString("trainer." + name, description));
    size_t tab = description.find('\t');
    int kind = -1;
    for (unsigned k = 0; k < kNumTrainFunctionKinds; ++k)
      if (description.substr(0, tab) ==
          trainFunctionKindName(static_cast<TrainFunctionKind>(k)))
        kind = static_cast<int>(k);
    if (tab == std::string::npos || kind < 0)
      return Status(StatusCode::DataLoss, source + ": trainer." + name + " '" +
                                              description +
                                              "' names no function");
    Shapes key;
    NNC_RUNTIME_RETURN_IF_ERROR(parseKey(description.substr(tab + 1),
                                         source + ": trainer." + name, key));
    const SectionRef *code = reader.findSection(name);
    if (!code || code->kind != SectionKind::Other)
      return Status(StatusCode::DataLoss,
                    source + ": no section " + name + " for trainer." + name);
    std::string programSource = source + ": " + name;
    ExecutableReader nested;
    NNC_RUNTIME_RETURN_IF_ERROR(ExecutableReader::fromBytes(
        code->data, code->size, nested, programSource));
    Device *device = nullptr;
    Status found = deviceForExecutable(std::string(nested.target()),
                                       kCudaOrdinalFromEnvironment, device);
    if (!found.isOk())
      return Status(found.code(), programSource + ": " + found.message());
    std::unique_ptr<Program> program;
    NNC_RUNTIME_RETURN_IF_ERROR(
        Program::load(std::move(nested), *device, programSource, program));
    program->setLabel(layout.functions[kind].name);
    NNC_RUNTIME_RETURN_IF_ERROR(
        programs->add(static_cast<TrainFunctionKind>(kind), std::move(key),
                      std::move(program)));
  }

  std::unique_ptr<Trainer> trainer;
  NNC_RUNTIME_RETURN_IF_ERROR(Trainer::create(std::move(spec), std::move(slots),
                                              std::move(state),
                                              std::move(programs), trainer));
  NNC_RUNTIME_RETURN_IF_ERROR(trainer->loadCheckpoint(checkpoint));
  out = std::move(trainer);
  return Status::ok();
}

} // namespace

bool isSavedTrainer(const ExecutableReader &reader) {
  const SectionRef *section = reader.findSection(kTrainerSection);
  return section && section->kind == SectionKind::Other;
}

Status Trainer::save(const std::string &path) const {
  const TrainLayout *layout = source_->layout();
  std::vector<TrainProgramSource::Entry> entries = source_->programs();
  if (!layout || entries.empty())
    return Status(StatusCode::InvalidArgument,
                  "the trainer has no compiled programs to save yet: run or "
                  "prepare a step first");
  Checkpoint checkpoint;
  NNC_RUNTIME_RETURN_IF_ERROR(stateCheckpoint(checkpoint));
  std::string text;
  NNC_RUNTIME_RETURN_IF_ERROR(layoutText(spec_, *layout, text));
  checkpoint.setInt("trainer.version", kSavedTrainerVersion);
  checkpoint.setString("trainer.layout", text);
  checkpoint.setString("trainer.model", spec_.modelName);
  checkpoint.setString("trainer.loss_type", dtypeName(spec_.lossType));
  checkpoint.setString("trainer.loss", spec_.loss);
  checkpoint.setInt("trainer.loss_output", spec_.lossOutput);
  checkpoint.setInt("trainer.classes", spec_.classes);
  if (spec_.hasIgnoreIndex)
    checkpoint.setInt("trainer.ignore_index", spec_.ignoreIndex);
  if (spec_.updatesInBackward)
    checkpoint.setInt("trainer.updates_in_backward", 1);
  checkpoint.setString("trainer.schedule", formatLrSchedule(spec_.schedule));
  checkpoint.setDouble("trainer.learning_rate", spec_.schedule.lr);
  checkpoint.setInt("trainer.accumulate", spec_.accumulate);
  spec_.scaler.save(checkpoint.metadata, "trainer.loss_scaler.");
  checkpoint.setInt("trainer.programs", static_cast<int64_t>(entries.size()));

  std::string target(entries.front().program.program->executable().target());
  ExecutableWriter writer(target);
  for (size_t n = 0; n < entries.size(); ++n) {
    const TrainProgramSource::Entry &entry = entries[n];
    const ExecutableReader &code = entry.program.program->executable();
    if (code.target() != target)
      return Status(StatusCode::InvalidArgument,
                    "the trainer's programs are for two targets (" + target +
                        ", " + std::string(code.target()) + ")");
    std::string name = "program." + std::to_string(n);
    checkpoint.setString("trainer." + name,
                         std::string(trainFunctionKindName(entry.kind)) + "\t" +
                             keyText(entry.key));
    NNC_RUNTIME_RETURN_IF_ERROR(writer.addSection(
        SectionKind::Other, name, code.data(), code.size(), 64));
  }
  std::vector<uint8_t> image;
  NNC_RUNTIME_RETURN_IF_ERROR(serializeCheckpoint(checkpoint, image));
  NNC_RUNTIME_RETURN_IF_ERROR(
      writer.addSection(SectionKind::Other, kTrainerSection, image));
  return writer.writeFile(path);
}

Status loadTrainer(const std::string &path, std::unique_ptr<Trainer> &out) {
  ExecutableReader reader;
  NNC_RUNTIME_RETURN_IF_ERROR(ExecutableReader::openFile(
      path, reader, ExecutableReader::LoadMode::Read));
  return loadFromReader(std::move(reader), path, out);
}

Status loadTrainerFromBytes(const void *data, size_t size,
                            const std::string &source,
                            std::unique_ptr<Trainer> &out) {
  ExecutableReader reader;
  NNC_RUNTIME_RETURN_IF_ERROR(
      ExecutableReader::fromBytes(data, size, reader, source));
  return loadFromReader(std::move(reader), source, out);
}

} // namespace nnc::runtime
