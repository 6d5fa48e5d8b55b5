//===- MetricsReader.cpp - reading metrics logs for nnc-run plot ----------===//
//
// readMetrics (Plot.h): the records of a log that `nnc-run train --metrics`
// wrote, one flat JSON object per line or CSV whose header names the
// columns, into a MetricsRun. Standard library only.
//
//===----------------------------------------------------------------------===//

#include "Plot.h"

#include "../common/FileHelpers.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string_view>

namespace nnc::tools {
namespace {

using Point = MetricsRun::Point;
const double kNaN = std::nan("");

/// A value of a record; an empty CSV field and a JSON null are no field.
struct Field {
  bool isNumber = false;
  double number = kNaN;
  std::string text;
};
using Record = std::map<std::string, Field, std::less<>>;

/// A whole decimal number, or nan/inf in any case (printf's %g writes
/// those for a diverged loss, in CSV and JSON alike).
bool parseNumber(std::string_view s, double &out) {
  if (s.empty() || s.front() == '+')
    return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (end != s.data() + s.size())
    return false;
  if (ec == std::errc::result_out_of_range)
    out = std::strtod(std::string(s).c_str(), nullptr); // inf or 0
  return ec == std::errc() || ec == std::errc::result_out_of_range;
}

/// A parser of one flat JSON object: strings, numbers, true, false, null.
class JsonLine {
public:
  explicit JsonLine(std::string_view text) : s(text) {}

  /// The object into `record`; false with `problem` ("column N: ...").
  bool parse(Record &record, std::string &problem) {
    skipSpace();
    if (!consume('{'))
      return fail("expected a JSON object", problem);
    skipSpace();
    if (!consume('}')) {
      do {
        skipSpace();
        std::string key;
        if (peek() != '"')
          return fail("expected a string key", problem);
        if (!parseString(key, problem))
          return false;
        skipSpace();
        if (!consume(':'))
          return fail("expected ':' after a key", problem);
        skipSpace();
        Field value;
        bool null = false;
        if (!parseValue(value, null, problem))
          return false;
        if (null)
          record.erase(key);
        else
          record[key] = std::move(value);
        skipSpace();
      } while (consume(','));
      if (!consume('}'))
        return fail("expected ',' or '}'", problem);
    }
    skipSpace();
    if (pos != s.size())
      return fail("unexpected characters after the object", problem);
    return true;
  }

private:
  std::string_view s;
  size_t pos = 0;

  char peek() const { return pos < s.size() ? s[pos] : '\0'; }
  bool consume(char c) { return pos < s.size() && s[pos] == c && ++pos; }
  void skipSpace() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t'))
      ++pos;
  }
  bool fail(const std::string &what, std::string &problem) const {
    problem = "column " + std::to_string(pos + 1) + ": " + what;
    return false;
  }
  /// A string at '"', escapes decoded to UTF-8.
  bool parseString(std::string &out, std::string &problem) {
    static const char kEscapes[] = "\"\\/bfnrt", kMeaning[] = "\"\\/\b\f\n\r\t";
    size_t start = pos++;
    while (pos < s.size() && s[pos] != '"') {
      char c = s[pos++];
      if ((unsigned char)c < 0x20)
        return --pos, fail("a control character in a string", problem);
      if (c != '\\') {
        out += c;
        continue;
      }
      const char *plain = pos < s.size() ? std::strchr(kEscapes, s[pos]) : 0;
      if (plain && *plain) {
        out += kMeaning[plain - kEscapes];
        ++pos;
        continue;
      }
      // \uXXXX to UTF-8; surrogates (only in text nnc-run ignores) to U+FFFD.
      unsigned code = 0;
      if (!consume('u') || pos + 4 > s.size() ||
          std::from_chars(&s[pos], &s[pos] + 4, code, 16).ptr != &s[pos] + 4)
        return fail("an invalid escape in a string", problem);
      pos += 4;
      if (code >= 0xD800 && code < 0xE000)
        code = 0xFFFD;
      int extra = code < 0x80 ? 0 : code < 0x800 ? 1 : 2;
      out +=
          char(extra ? (0xFF00 >> (extra + 1)) | (code >> (6 * extra)) : code);
      for (int k = extra - 1; k >= 0; --k)
        out += char(0x80 | ((code >> (6 * k)) & 0x3F));
    }
    if (!consume('"'))
      return pos = start, fail("an unterminated string", problem);
    return true;
  }
  bool parseValue(Field &out, bool &null, std::string &problem) {
    if (peek() == '"')
      return parseString(out.text, problem);
    if (peek() == '{' || peek() == '[')
      return fail("a nested value (a record is one flat object)", problem);
    size_t start = pos;
    while (pos < s.size() &&
           (std::isalnum((unsigned char)s[pos]) || std::strchr(".+-", s[pos])))
      ++pos;
    std::string_view token = s.substr(start, pos - start);
    null = token == "null";
    if (null || token == "true" || token == "false") {
      out.text = token;
      return true;
    }
    // Numbers, and the words nan and inf of printf's %g.
    out.isNumber = true;
    if (parseNumber(token, out.number))
      return true;
    pos = start;
    return fail("not a JSON value", problem);
  }
};

/// The record's `key` as a number into `value`: NaN when absent; false
/// with `problem` when it is something else.
bool getNumber(const Record &record, std::string_view key, double &value,
               std::string &problem) {
  auto it = record.find(key);
  value = it == record.end() ? kNaN : it->second.number;
  if (it == record.end() || it->second.isNumber)
    return true;
  problem = "'" + std::string(key) + "' is not a number";
  return false;
}

/// Adds a record to `run`; unknown kinds and keys are left alone (logs of
/// later versions), so are advice records.
bool addRecord(const Record &record, MetricsRun &run, size_t &steps,
               std::string &problem) {
  auto kind = record.find("kind");
  if (kind == record.end() || kind->second.isNumber) {
    problem = "a record without a string 'kind'";
    return false;
  }
  const std::string &name = kind->second.text;
  if (name != "step" && name != "eval" && name != "interval")
    return true;
  double step;
  if (!getNumber(record, "step", step, problem))
    return false;
  if (!std::isfinite(step)) {
    problem = "a " + name + " record without a finite 'step'";
    return false;
  }
  auto add = [&](std::vector<Point> &series, std::string_view key) {
    double value;
    if (!getNumber(record, key, value, problem))
      return false;
    series.push_back({step, value});
    return true;
  };
  if (name == "step") {
    ++steps;
    return add(run.loss, "loss") && add(run.learningRate, "learning_rate") &&
           add(run.stepThroughput, "samples_per_second");
  }
  if (name == "interval")
    return add(run.intervalThroughput, "samples_per_second") &&
           add(run.busy, "busy") && add(run.dataWait, "data_wait") &&
           add(run.other, "other");
  for (const char *metric : {"accuracy", "mse", "eval_metric"}) {
    if (!record.count(metric))
      continue;
    if (run.evalName.empty())
      run.evalName =
          std::strcmp(metric, "eval_metric") ? metric : "eval metric";
    return add(run.eval, metric);
  }
  return true; // an evaluation of a metric this version does not know
}

bool readJsonLines(std::string_view text, MetricsRun &run, size_t &steps,
                   size_t &line, std::string &problem) {
  while (!text.empty()) {
    ++line;
    size_t end = std::min(text.find('\n'), text.size());
    std::string_view content = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    if (!content.empty() && content.back() == '\r')
      content.remove_suffix(1);
    if (content.find_first_not_of(" \t") == std::string_view::npos)
      continue;
    Record record;
    if (!JsonLine(content).parse(record, problem) ||
        !addRecord(record, run, steps, problem))
      return false;
  }
  return true;
}

/// CSV (RFC 4180: quoted fields may hold commas, doubled quotes and line
/// breaks); columns by the header's names, so logs with fewer columns read
/// too.
bool readCsv(std::string_view text, MetricsRun &run, size_t &steps,
             size_t &line, std::string &problem) {
  static const char *const kNumeric[] = {
      "step", "loss",      "learning_rate", "samples_per_second",
      "busy", "data_wait", "other",         "eval_metric"};
  std::vector<std::string> header;
  size_t pos = 0, nextLine = 1;
  while (pos < text.size()) {
    line = nextLine;
    std::vector<std::string> fields(1);
    for (bool rowEnd = false; !rowEnd && pos < text.size();) {
      char c = text[pos++];
      if (c == '"' && fields.back().empty()) {
        size_t close = pos;
        while ((close = text.find('"', close)) != std::string_view::npos &&
               text.substr(close, 2) == "\"\"")
          close += 2;
        if (close == std::string_view::npos) {
          problem = "a quoted field without its closing quote";
          return false;
        }
        for (; pos < close; ++pos) {
          fields.back() += text[pos];
          pos += text[pos] == '"';
          nextLine += text[pos] == '\n';
        }
        if (++pos < text.size() && !std::strchr(",\r\n", text[pos])) {
          problem = "characters after the closing quote of a field";
          return false;
        }
      } else if (c == '"') {
        problem = "a quote inside an unquoted field";
        return false;
      } else if (c == ',') {
        fields.emplace_back();
      } else if (c == '\n') {
        rowEnd = true;
        ++nextLine;
      } else if (c != '\r' || (pos < text.size() && text[pos] != '\n')) {
        fields.back() += c;
      }
    }
    if (fields.size() == 1 && fields[0].empty())
      continue; // a blank line
    if (header.empty()) {
      header = fields;
      for (const char *required : {"kind", "step"}) {
        if (std::find(header.begin(), header.end(), required) != header.end())
          continue;
        problem = std::string("the header has no '") + required + "' column";
        return false;
      }
      continue;
    }
    if (fields.size() > header.size()) {
      problem = std::to_string(fields.size()) + " fields, but the header has " +
                std::to_string(header.size()) + " columns";
      return false;
    }
    Record record;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].empty() || record.count(header[i]))
        continue;
      Field &field = record[header[i]];
      field.text = fields[i];
      field.isNumber = std::find(std::begin(kNumeric), std::end(kNumeric),
                                 header[i]) != std::end(kNumeric);
      if (field.isNumber && !parseNumber(fields[i], field.number)) {
        problem = "'" + header[i] + "' is not a number: '" + fields[i] + "'";
        return false;
      }
    }
    if (!addRecord(record, run, steps, problem))
      return false;
  }
  return true;
}

bool endsWith(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

} // namespace

bool readMetrics(const std::string &path, MetricsRun &run, std::string &error) {
  std::string text;
  if (!readRegularFile(path, "metrics log", text, error))
    return false;
  // .csv and .jsonl by name; any other name by its first character.
  bool json = endsWith(path, ".jsonl");
  if (!json && !endsWith(path, ".csv")) {
    size_t first = text.find_first_not_of(" \t\r\n");
    json = first != std::string::npos && text[first] == '{';
  }
  MetricsRun read;
  read.label = run.label;
  size_t steps = 0, line = 0;
  std::string problem;
  if (!(json ? readJsonLines(text, read, steps, line, problem)
             : readCsv(text, read, steps, line, problem))) {
    error = path + ":" + std::to_string(line) + ": " + problem;
    return false;
  }
  if (!steps) {
    error = "metrics log '" + path + "' has no step records";
    return false;
  }
  run = std::move(read);
  return true;
}

} // namespace nnc::tools
