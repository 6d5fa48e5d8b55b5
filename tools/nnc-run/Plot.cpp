//===- Plot.cpp - training metrics as a self-contained SVG ----------------===//
//
// Draws metrics logs as SVG panels stacked over one step axis, and the
// `nnc-run plot` command. No plotting library: a chart is a few paths, lines
// and texts, so a training machine can write one with nothing installed.
//
//===----------------------------------------------------------------------===//

#include "Plot.h"

#include "../common/ArgHelpers.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace nnc::tools {
namespace {

using Point = MetricsRun::Point;

//===----------------------------------------------------------------------===//
// Drawing
//===----------------------------------------------------------------------===//

const char *const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                               "#9467bd", "#8c564b", "#e377c2", "#17becf",
                               "#7f7f7f", "#bcbd22"};
constexpr double kWidth = 960, kLeft = 84, kPlotWidth = kWidth - kLeft - 24;
// A panel: its title, the plot, the x tick labels and a gap.
constexpr double kPlotHeight = 150, kPanelHeight = 20 + kPlotHeight + 34;

__attribute__((format(printf, 2, 3))) void appendf(std::string &out,
                                                   const char *format, ...) {
  va_list args, copy;
  va_start(args, format);
  va_copy(copy, args);
  size_t old = out.size(), n = size_t(std::vsnprintf(nullptr, 0, format, copy));
  va_end(copy);
  out.resize(old + n + 1);
  std::vsnprintf(&out[old], n + 1, format, args);
  out.resize(old + n);
  va_end(args);
}

/// Finite, and far from overflowing once scaled to pixels.
bool plottable(double v) { return std::fabs(v) < 1e290; }

/// Text for XML: markup escaped; control characters and malformed UTF-8
/// (labels are file names, which may hold any bytes) replaced.
std::string xmlText(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i], d = i + 1 < s.size() ? s[i + 1] : 0;
    size_t n = c < 0x80   ? 1
               : c < 0xC2 ? 0
               : c < 0xE0 ? 2
               : c < 0xF0 ? 3
               : c < 0xF5 ? 4
                          : 0;
    bool valid = n && i + n <= s.size() && !(c == 0xE0 && d < 0xA0) &&
                 !(c == 0xED && d >= 0xA0) && !(c == 0xF0 && d < 0x90) &&
                 !(c == 0xF4 && d >= 0x90);
    for (size_t k = 1; valid && k < n; ++k)
      valid = (s[i + k] & 0xC0) == 0x80;
    const char *entity = c == '&'    ? "&amp;"
                         : c == '<'  ? "&lt;"
                         : c == '>'  ? "&gt;"
                         : c == '"'  ? "&quot;"
                         : c == '\'' ? "&apos;"
                                     : nullptr;
    if (!valid)
      out += "\xEF\xBF\xBD", n = 1;
    else if (entity)
      out += entity;
    else if (n == 1 && (c < 0x20 || c == 0x7F))
      out += ' ';
    else
      out += s.substr(i, n);
    i += n;
  }
  return out;
}

/// [min, max] widened to multiples of a step of 1, 2 or 5 times a power of
/// ten, about `count` steps and at least `least`.
struct Axis {
  double lo, hi, step;

  Axis(double min, double max, int count, double least = 0) {
    if (!(min <= max))
      min = 0, max = 1; // nothing to show
    if (!(max - min > 1e-9 * std::max(std::fabs(min), std::fabs(max)))) {
      double pad = min != 0 ? std::fabs(min) * 0.1 : 1;
      min -= pad, max += pad;
    }
    double raw = (max - min) / count;
    double power = std::pow(10.0, std::floor(std::log10(raw)));
    double f = raw / power;
    step = std::max(least, (f < 1.5   ? 1
                            : f < 3.5 ? 2
                            : f < 7.5 ? 5
                                      : 10) *
                               power);
    lo = std::floor(min / step) * step;
    hi = std::ceil(max / step) * step;
  }
  std::vector<double> ticks() const {
    std::vector<double> values;
    for (double k = std::round(lo / step);
         k * step <= hi + step * 1e-6 && values.size() < 64; ++k)
      values.push_back(k * step);
    return values;
  }
  double fraction(double v) const { return (v - lo) / (hi - lo); }
  /// A tick's text: the decimals the step needs; k, M and G for large
  /// steps.
  std::string label(double v) const {
    char buffer[64];
    double unit = step >= 1e9 ? 1e9 : step >= 1e6 ? 1e6 : step >= 1e4 ? 1e3 : 1;
    int decimals = std::max(0, int(-std::floor(std::log10(step / unit))));
    if (std::fabs(v) < step * 1e-6)
      return "0";
    if (step < 1e-4)
      std::snprintf(buffer, sizeof buffer, "%.3g", v);
    else
      std::snprintf(buffer, sizeof buffer, "%.*f%s", decimals, v / unit,
                    unit == 1e9   ? "G"
                    : unit == 1e6 ? "M"
                    : unit == 1e3 ? "k"
                                  : "");
    return buffer;
  }
};

/// One run's series in a panel.
struct Curve {
  size_t run;
  const char *series; // data-series
  const char *name;   // for its <title>
  const std::vector<Point> *points;
  const char *dash;
};

struct Panel {
  const char *name;
  std::string title;
  double scale = 1;     // shares are drawn as percent
  bool markers = false; // a point at every value, not only isolated ones
  std::vector<Curve> curves = {};
};

bool hasValue(const std::vector<Point> &points, double scale) {
  return std::any_of(points.begin(), points.end(), [&](const Point &p) {
    return plottable(p.step) && plottable(p.value * scale);
  });
}

/// The panels with something to show; the loss panel always.
std::vector<Panel> makePanels(const std::vector<MetricsRun> &runs) {
  Panel loss{"loss", "training loss"}, eval{"eval", "", 1, true},
      rate{"learning_rate", "learning rate"},
      throughput{"throughput", "throughput (samples/s)"},
      shares{"time",
             "share of wall time (%): busy (solid), data wait (dashed), "
             "other (dotted)",
             100};
  std::string evalName;
  for (size_t i = 0; i < runs.size(); ++i) {
    const MetricsRun &run = runs[i];
    loss.curves.push_back({i, "loss", "training loss", &run.loss, nullptr});
    if (hasValue(run.eval, 1)) {
      std::string name = run.evalName.empty() ? "eval metric" : run.evalName;
      evalName = evalName.empty() || evalName == name ? name : "eval metric";
    }
    eval.curves.push_back({i, "eval", "evaluation", &run.eval, nullptr});
    rate.curves.push_back(
        {i, "learning_rate", "learning rate", &run.learningRate, nullptr});
    bool intervals = hasValue(run.intervalThroughput, 1);
    throughput.curves.push_back(
        {i, "throughput",
         intervals ? "throughput per interval" : "throughput per step",
         intervals ? &run.intervalThroughput : &run.stepThroughput, nullptr});
    shares.curves.push_back({i, "busy", "busy", &run.busy, nullptr});
    shares.curves.push_back(
        {i, "data_wait", "data wait", &run.dataWait, "6 3"});
    shares.curves.push_back({i, "other", "other", &run.other, "1.5 3"});
  }
  eval.title = evalName == "accuracy" ? "evaluation accuracy (%)"
               : evalName == "mse"    ? "evaluation mean squared error"
                                      : "evaluation metric";
  std::vector<Panel> panels{loss};
  for (Panel *panel : {&eval, &rate, &throughput, &shares})
    if (std::any_of(
            panel->curves.begin(), panel->curves.end(),
            [&](const Curve &c) { return hasValue(*c.points, panel->scale); }))
      panels.push_back(std::move(*panel));
  return panels;
}

/// The curve as one path, a gap at each value that cannot be drawn, then a
/// point at each value without a neighbour drawn (at every value with
/// `markers`).
template <typename X, typename Y>
void drawCurve(std::string &out, const Panel &panel, const Curve &curve,
               const std::string &label, X xOf, Y yOf) {
  const std::vector<Point> &points = *curve.points;
  auto drawn = [&](size_t i) {
    return i < points.size() && plottable(points[i].step) &&
           plottable(points[i].value * panel.scale);
  };
  const char *color = kColors[curve.run % std::size(kColors)];
  std::string circles;
  appendf(out,
          "<path class=\"curve\" data-run=\"%zu\" data-series=\"%s\" "
          "fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
          "stroke-linejoin=\"round\" stroke-dasharray=\"%s\" d=\"",
          curve.run, curve.series, color, curve.dash ? curve.dash : "none");
  const char *separator = "";
  for (size_t i = 0; i < points.size(); ++i) {
    if (!drawn(i))
      continue;
    bool first = i == 0 || !drawn(i - 1);
    double x = xOf(points[i].step), y = yOf(points[i].value * panel.scale);
    appendf(out, "%s%c%.2f %.2f", separator, first ? 'M' : 'L', x, y);
    separator = " ";
    if (panel.markers || (first && !drawn(i + 1)))
      appendf(circles,
              "<circle class=\"point\" data-run=\"%zu\" data-series=\"%s\" "
              "cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\" fill=\"%s\"/>\n",
              curve.run, curve.series, x, y, color);
  }
  out += "\"><title>" + xmlText(label) + ": " + curve.name +
         "</title></path>\n" + circles;
}

} // namespace

std::string renderPlot(const std::vector<MetricsRun> &runs,
                       const std::string &title) {
  std::vector<Panel> panels = makePanels(runs);
  double stepMin = HUGE_VAL, stepMax = -HUGE_VAL;
  for (const Panel &panel : panels)
    for (const Curve &curve : panel.curves)
      for (const Point &p : *curve.points)
        if (plottable(p.step) && plottable(p.value * panel.scale))
          stepMin = std::min(stepMin, p.step),
          stepMax = std::max(stepMax, p.step);
  Axis steps(stepMin, stepMax, 10, 1); // steps are whole numbers
  auto xOf = [&](double step) {
    return kLeft + kPlotWidth * steps.fraction(step);
  };
  auto labelOf = [&](size_t i) {
    return runs[i].label.empty() ? "run " + std::to_string(i) : runs[i].label;
  };

  // The legend, in rows as wide as the plots.
  std::string legend;
  double lx = kLeft, ly = 52;
  for (size_t i = 0; i < runs.size(); ++i) {
    std::string label = labelOf(i);
    double width =
        44 + 7.0 * double(std::count_if(label.begin(), label.end(), [](char c) {
               return (c & 0xC0) != 0x80;
             }));
    if (lx > kLeft && lx + width > kLeft + kPlotWidth)
      lx = kLeft, ly += 18;
    appendf(legend,
            "<g class=\"legend\" data-run=\"%zu\"><line x1=\"%.2f\" "
            "y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
            "stroke-width=\"3\"/><text x=\"%.2f\" y=\"%.2f\">%s</text></g>\n",
            i, lx, ly - 4, lx + 24, ly - 4, kColors[i % std::size(kColors)],
            lx + 30, ly, xmlText(label).c_str());
    lx += width;
  }
  double top = ly + 20;
  double height = top + double(panels.size()) * kPanelHeight + 24;

  std::string out;
  appendf(out,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "
          "xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
          "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
          "font-family=\"sans-serif\" font-size=\"12\">\n<title>%s</title>\n"
          "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
          "fill=\"white\"/>\n<text class=\"title\" x=\"%.0f\" y=\"28\" "
          "font-size=\"18\" font-weight=\"bold\">%s</text>\n",
          kWidth, height, kWidth, height, xmlText(title).c_str(), kWidth,
          height, kLeft, xmlText(title).c_str());
  out += legend;
  for (size_t k = 0; k < panels.size(); ++k) {
    const Panel &panel = panels[k];
    double y0 = top + double(k) * kPanelHeight + 20, y1 = y0 + kPlotHeight;
    // Shares always show 0 to 100 %.
    double min = panel.scale == 100 ? 0 : HUGE_VAL;
    double max = panel.scale == 100 ? 100 : -HUGE_VAL;
    for (const Curve &curve : panel.curves)
      for (const Point &p : *curve.points)
        if (plottable(p.step) && plottable(p.value * panel.scale))
          min = std::min(min, p.value * panel.scale),
          max = std::max(max, p.value * panel.scale);
    Axis values(min, max, 5);
    auto yOf = [&](double v) { return y1 - kPlotHeight * values.fraction(v); };
    appendf(out,
            "<g class=\"panel\" data-panel=\"%s\">\n<text "
            "class=\"panel-title\" x=\"%.0f\" y=\"%.2f\" "
            "font-weight=\"bold\">%s</text>\n",
            panel.name, kLeft, y0 - 7, xmlText(panel.title).c_str());
    for (double v : values.ticks())
      appendf(out,
              "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
              "y2=\"%.2f\" stroke=\"#e4e4e4\"/><text x=\"%.2f\" y=\"%.2f\" "
              "text-anchor=\"end\">%s</text>\n",
              kLeft - 4, yOf(v), kLeft + kPlotWidth, yOf(v), kLeft - 6,
              yOf(v) + 4, values.label(v).c_str());
    for (double s : steps.ticks())
      appendf(out,
              "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
              "y2=\"%.2f\" stroke=\"#e4e4e4\"/><text x=\"%.2f\" y=\"%.2f\" "
              "text-anchor=\"middle\">%s</text>\n",
              xOf(s), y0, xOf(s), y1 + 4, xOf(s), y1 + 16,
              steps.label(s).c_str());
    appendf(out,
            "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
            "fill=\"none\" stroke=\"#999\"/>\n",
            kLeft, y0, kPlotWidth, kPlotHeight);
    for (const Curve &curve : panel.curves)
      if (hasValue(*curve.points, panel.scale))
        drawCurve(out, panel, curve, labelOf(curve.run), xOf, yOf);
    out += "</g>\n";
  }
  appendf(out,
          "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">optimizer "
          "step</text>\n</svg>\n",
          kLeft + kPlotWidth / 2, height - 8);
  return out;
}

//===----------------------------------------------------------------------===//
// nnc-run plot
//===----------------------------------------------------------------------===//

namespace {

const char *kPlotUsage =
    R"(usage: nnc-run plot LOG [LOG...] -o FILE.svg [--label NAME]... [--title TEXT]

Draws metrics logs (what `nnc-run train --metrics` writes, .csv or .jsonl)
as one self-contained SVG chart over the optimizer step: training loss,
the evaluation metric, learning rate, throughput and the shares of wall
time, one colour per log (to compare runs, e.g. f32 against bf16).

options:
  -o, --output FILE.svg    where the chart goes (written whole or not at all)
  --label NAME             the legend name of a log, once per log in order
                           (default: the file names)
  --title TEXT             the chart's title (default: "Training metrics")
  --help                   this text

Exit status: 0 on success, 1 on any error, 2 for a malformed command line.
)";

} // namespace

bool writeSvg(const std::string &path, const std::string &text,
              std::string &error) {
  std::string temp = path + ".tmp";
  std::FILE *file = std::fopen(temp.c_str(), "wb");
  int err = errno;
  bool ok =
      file && std::fwrite(text.data(), 1, text.size(), file) == text.size();
  if (file) {
    err = errno;
    if (std::fclose(file) != 0 && ok)
      ok = false, err = errno;
    if (ok && std::rename(temp.c_str(), path.c_str()) != 0)
      ok = false, err = errno;
    if (!ok)
      std::remove(temp.c_str());
  }
  if (!ok)
    error = "cannot write plot '" + path + "': " + std::strerror(err);
  return ok;
}

int runPlot(int argc, char **argv) {
  auto fail = [](const std::string &message, int status) {
    std::fprintf(stderr, "nnc-run: error: %s\n", message.c_str());
    return status;
  };
  std::vector<std::string> logs, labels;
  std::string output, title = "Training metrics";
  bool hasOutput = false, hasTitle = false, optionsEnded = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (optionsEnded || arg.size() < 2 || arg[0] != '-') {
      logs.push_back(arg);
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      std::fputs(kPlotUsage, stdout);
      return 0;
    }
    if (arg == "--") {
      optionsEnded = true;
      continue;
    }
    std::string name = arg.substr(0, arg.find('='));
    if (name != "-o" && name != "--output" && name != "--label" &&
        name != "--title")
      return fail("unknown option '" + arg + "' (see nnc-run plot --help)", 2);
    std::string value;
    if (!takeOptionValue(argc, argv, i, name, value))
      return fail("option '" + name + "' needs a value", 2);
    if (name == "--label") {
      labels.push_back(value);
      continue;
    }
    bool &given = name == "--title" ? hasTitle : hasOutput;
    if (given)
      return fail("option '" + name + "' given twice", 2);
    given = true;
    (name == "--title" ? title : output) = value;
  }
  if (logs.empty())
    return fail("no metrics log given (see nnc-run plot --help)", 2);
  if (output.empty())
    return fail("no output file given: -o FILE.svg (see nnc-run plot --help)",
                2);
  if (!labels.empty() && labels.size() != logs.size())
    return fail(std::to_string(labels.size()) + " --label for " +
                    std::to_string(logs.size()) +
                    " logs: give one per log, in order, or none",
                2);

  std::vector<MetricsRun> runs(logs.size());
  auto base = [](const std::string &path) {
    return path.substr(path.find_last_of('/') + 1);
  };
  for (size_t i = 0; i < logs.size(); ++i) {
    std::string error;
    if (!readMetrics(logs[i], runs[i], error))
      return fail(error, 1);
    // By default the file name, or the path where two logs share a name.
    runs[i].label = labels.empty() ? base(logs[i]) : labels[i];
    for (size_t j = 0; j < logs.size() && labels.empty(); ++j)
      if (j != i && base(logs[j]) == runs[i].label)
        runs[i].label = logs[i];
  }
  std::string error;
  if (!writeSvg(output, renderPlot(runs, title), error))
    return fail(error, 1);
  return 0;
}

} // namespace nnc::tools
