//===- Plot.h - training metrics as a self-contained SVG --------*- C++ -*-===//
//
// `nnc-run plot LOG... -o FILE.svg` and what `nnc-run train --plot` shares
// with it: the records of a metrics log (--metrics, .csv or .jsonl; read in
// MetricsReader.cpp) and one SVG dashboard of one or more runs (Plot.cpp),
// written with the standard library alone.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TOOLS_NNC_RUN_PLOT_H
#define NNC_TOOLS_NNC_RUN_PLOT_H

#include <string>
#include <vector>

namespace nnc::tools {

/// One run's series, each in log order. A value that is not finite (a NaN
/// loss, a field the record left empty) is kept as NaN: the curve has a gap
/// there. Fillable without a file (`nnc-run train --plot`).
struct MetricsRun {
  /// The legend text (the log's file name by default).
  std::string label;
  /// What `eval` holds: "accuracy" (percent), "mse" or "eval metric".
  std::string evalName;
  struct Point {
    double step;
    double value;
  };
  /// Per step record (skipped steps too: they have a loss).
  std::vector<Point> loss, learningRate, stepThroughput;
  /// Per eval record.
  std::vector<Point> eval;
  /// Per interval record; busy, dataWait and other are shares (0 to 1) of
  /// the interval's wall time.
  std::vector<Point> intervalThroughput, busy, dataWait, other;
};

/// Reads a .jsonl or .csv metrics log into `run` (its label left alone);
/// false with `error` naming the file (and line) and what is wrong, also
/// when the log has no step record.
bool readMetrics(const std::string &path, MetricsRun &run, std::string &error);

/// The SVG document of `runs` on one chart: stacked panels over the
/// optimizer step (loss; evaluation, when a run has one; learning rate;
/// throughput; time shares, when a run has interval records). Each curve is
/// one <path class="curve" data-run="K" data-series="NAME">, one vertex per
/// finite value, y affine and decreasing in the value within a panel, x
/// affine and increasing in the step across all panels.
std::string renderPlot(const std::vector<MetricsRun> &runs,
                       const std::string &title);

/// Writes `svg` to `path` through `path`.tmp renamed, so that a failure
/// leaves no partial file; false with `error` naming `path` and the cause.
bool writeSvg(const std::string &path, const std::string &svg,
              std::string &error);

/// `nnc-run plot LOG... -o FILE.svg`; argv[0] is "plot".
int runPlot(int argc, char **argv);

} // namespace nnc::tools

#endif // NNC_TOOLS_NNC_RUN_PLOT_H
