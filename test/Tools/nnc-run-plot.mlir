// nnc-run plot draws metrics logs (what `nnc-run train --metrics` writes,
// JSON lines or CSV) as one SVG chart. check_plot.py reads the logs itself
// and checks every curve against them: one path per run and series, one
// vertex per finite value in log order, a gap at each NaN or inf, y affine
// and decreasing in the value within a panel, x affine in the step.
// RUN: rm -rf %t && mkdir -p %t

// Two runs on one chart: a JSONL log (nan and Infinity losses, a null, an
// unknown key, an unknown kind, an advice record with escapes) and a CSV log
// (CRLF lines, an advice text quoted with a comma, doubled quotes and a line
// break, a -nan loss, the eval metric unnamed).
// RUN: nnc-run plot %S/Inputs/plot/f32.jsonl %S/Inputs/plot/bf16.csv \
// RUN:   -o %t/two.svg --label "f32 <ref>" --label "bf16 & co" \
// RUN:   --title "f32 & bf16"
// RUN: %python %S/Inputs/check_plot.py %t/two.svg %S/Inputs/plot/f32.jsonl \
// RUN:   %S/Inputs/plot/bf16.csv | FileCheck %s --check-prefix=TWO
// TWO:      legend 0: f32 <ref>
// TWO-NEXT: legend 1: bf16 & co
// TWO-NEXT: run 0 loss: 6 vertices, 3 subpaths
// TWO-NEXT: run 0 eval: 3 vertices, 1 subpaths
// TWO-NEXT: run 0 learning_rate: 8 vertices, 1 subpaths
// TWO-NEXT: run 0 throughput: 3 vertices, 1 subpaths
// TWO-NEXT: run 0 busy: 3 vertices, 1 subpaths
// TWO-NEXT: run 0 data_wait: 3 vertices, 1 subpaths
// TWO-NEXT: run 0 other: 3 vertices, 1 subpaths
// TWO-NEXT: run 1 loss: 5 vertices, 2 subpaths
// TWO-NEXT: run 1 eval: 2 vertices, 1 subpaths
// TWO-NEXT: run 1 learning_rate: 6 vertices, 1 subpaths
// TWO-NEXT: run 1 throughput: 3 vertices, 1 subpaths
// TWO-NEXT: run 1 busy: 3 vertices, 1 subpaths
// TWO-NEXT: run 1 data_wait: 3 vertices, 1 subpaths
// TWO-NEXT: run 1 other: 3 vertices, 1 subpaths
// TWO-NEXT: ok: 5 panels
// The title and labels are escaped; the step 4 loss of the f32 run, between
// two gaps, is also a point; two metric names make a neutral eval title.
// RUN: FileCheck %s --check-prefix=SVG < %t/two.svg
// SVG: <title>f32 &amp; bf16</title>
// SVG: >f32 &lt;ref&gt;</text>
// SVG: >bf16 &amp; co</text>
// SVG: <path class="curve" data-run="0" data-series="loss" {{.*}}><title>f32 &lt;ref&gt;: training loss</title></path>
// SVG-NEXT: <circle class="point" data-run="0" data-series="loss"
// SVG: >evaluation metric</text>
// SVG: optimizer step
// RUN: not ls %t/two.svg.tmp

// The checker is no rubber stamp: the same chart fails against a log with two
// losses swapped, or with the runs in the other order.
// RUN: sed -e 's/"loss": 1.9,/"loss": X,/' -e 's/"loss": 0.7,/"loss": 1.9,/' \
// RUN:   -e 's/"loss": X,/"loss": 0.7,/' \
// RUN:   %S/Inputs/plot/f32.jsonl > %t/swapped.jsonl
// RUN: not %python %S/Inputs/check_plot.py %t/two.svg %t/swapped.jsonl \
// RUN:   %S/Inputs/plot/bf16.csv | FileCheck %s --check-prefix=SWAPPED
// SWAPPED: invalid plot: panel loss: a coordinate is {{.*}} pixels off the affine map of the values
// RUN: not %python %S/Inputs/check_plot.py %t/two.svg %S/Inputs/plot/bf16.csv \
// RUN:   %S/Inputs/plot/f32.jsonl | FileCheck %s --check-prefix=ORDER
// ORDER: invalid plot: run 0 loss: 6 vertices for 5 finite values

// A log of the first version (10 columns, no interval records): throughput
// per step, no time panel; the label is the file name by default.
// RUN: nnc-run plot %S/Inputs/plot/old.csv -o %t/old.svg
// RUN: %python %S/Inputs/check_plot.py %t/old.svg %S/Inputs/plot/old.csv \
// RUN:   | FileCheck %s --check-prefix=OLD
// OLD:      legend 0: old.csv
// OLD-NEXT: run 0 loss: 4 vertices, 1 subpaths
// OLD-NEXT: run 0 eval: 2 vertices, 1 subpaths
// OLD-NEXT: run 0 learning_rate: 4 vertices, 1 subpaths
// OLD-NEXT: run 0 throughput: 4 vertices, 1 subpaths
// OLD-NEXT: ok: 4 panels
// RUN: not grep -q 'data-panel="time"' %t/old.svg

// One metric name titles its panel; two logs of the same file name are
// told apart by their paths.
// RUN: mkdir -p %t/a %t/b
// RUN: cp %S/Inputs/plot/f32.jsonl %t/a/m.jsonl
// RUN: cp %S/Inputs/plot/f32.jsonl %t/b/m.jsonl
// RUN: nnc-run plot %t/a/m.jsonl %t/b/m.jsonl -o %t/same.svg
// RUN: %python %S/Inputs/check_plot.py %t/same.svg %t/a/m.jsonl %t/b/m.jsonl \
// RUN:   | FileCheck %s --check-prefix=SAME
// SAME:      legend 0: {{.*}}a/m.jsonl
// SAME-NEXT: legend 1: {{.*}}b/m.jsonl
// SAME: ok: 5 panels
// RUN: FileCheck %s --check-prefix=ACCURACY < %t/same.svg
// ACCURACY: >evaluation accuracy (%)</text>

// The command line: --help, the subcommand in nnc-run's usage; exit 2 for a
// malformed command line.
// RUN: nnc-run plot --help | FileCheck %s --check-prefix=HELP
// HELP: usage: nnc-run plot LOG [LOG...] -o FILE.svg [--label NAME]... [--title TEXT]
// RUN: nnc-run --help | FileCheck %s --check-prefix=USAGE
// USAGE: nnc-run plot LOG [LOG...] -o FILE.svg
// RUN: nnc-run plot %S/Inputs/plot/f32.jsonl %S/Inputs/plot/old.csv \
// RUN:   -o %t/x.svg --label one > %t/labels.txt 2>&1; echo "exit $?" >> %t/labels.txt
// RUN: FileCheck %s --check-prefix=LABELS < %t/labels.txt
// LABELS: nnc-run: error: 1 --label for 2 logs: give one per log, in order, or none
// LABELS-NEXT: exit 2
// RUN: nnc-run plot %S/Inputs/plot/f32.jsonl > %t/no-output.txt 2>&1; echo "exit $?" >> %t/no-output.txt
// RUN: FileCheck %s --check-prefix=NO-OUTPUT < %t/no-output.txt
// NO-OUTPUT: nnc-run: error: no output file given: -o FILE.svg (see nnc-run plot --help)
// NO-OUTPUT-NEXT: exit 2
// RUN: not nnc-run plot -o %t/x.svg 2>&1 | FileCheck %s --check-prefix=NO-LOG
// NO-LOG: nnc-run: error: no metrics log given (see nnc-run plot --help)
// RUN: not nnc-run plot %S/Inputs/plot/f32.jsonl -o %t/x.svg --smooth 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: nnc-run: error: unknown option '--smooth' (see nnc-run plot --help)
// RUN: not nnc-run plot %S/Inputs/plot/f32.jsonl -o 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-VALUE
// NO-VALUE: nnc-run: error: option '-o' needs a value

// Logs that cannot be drawn: exit 1, naming the file (and line).
// RUN: nnc-run plot %t/missing.jsonl -o %t/x.svg > %t/missing.txt 2>&1; echo "exit $?" >> %t/missing.txt
// RUN: FileCheck %s --check-prefix=MISSING < %t/missing.txt
// MISSING: nnc-run: error: cannot read metrics log '{{.*}}missing.jsonl': No such file or directory
// MISSING-NEXT: exit 1
// RUN: printf '{"kind": "step", "step": 1, "loss": 1}\n\n{"kind": "step", "step": 2, "loss": 1.5,}\n' > %t/comma.jsonl
// RUN: not nnc-run plot %t/comma.jsonl -o %t/x.svg 2>&1 | FileCheck %s --check-prefix=COMMA
// COMMA: nnc-run: error: {{.*}}comma.jsonl:3: column 41: expected a string key
// RUN: printf '{"kind": "step", "step": 1, "loss": "low"}\n' > %t/text.jsonl
// RUN: not nnc-run plot %t/text.jsonl -o %t/x.svg 2>&1 | FileCheck %s --check-prefix=TEXT
// TEXT: nnc-run: error: {{.*}}text.jsonl:1: 'loss' is not a number
// RUN: printf '{"kind": "step", "step": 1, "loss": 1}\ngarbage\n' > %t/garbage.jsonl
// RUN: not nnc-run plot %t/garbage.jsonl -o %t/x.svg 2>&1 | FileCheck %s --check-prefix=GARBAGE
// GARBAGE: nnc-run: error: {{.*}}garbage.jsonl:2: column 1: expected a JSON object
// RUN: printf 'kind,step,loss\nstep,1,0.5\nstep,2,abc\n' > %t/bad.csv
// RUN: not nnc-run plot %t/bad.csv -o %t/x.svg 2>&1 | FileCheck %s --check-prefix=CSV
// CSV: nnc-run: error: {{.*}}bad.csv:3: 'loss' is not a number: 'abc'
// RUN: printf 'kind,step,text\nstep,1,ok\nadvice,2,"open\nstill open\n' > %t/quote.csv
// RUN: not nnc-run plot %t/quote.csv -o %t/x.svg 2>&1 | FileCheck %s --check-prefix=QUOTE
// QUOTE: nnc-run: error: {{.*}}quote.csv:3: a quoted field without its closing quote
// RUN: printf 'kind,step,loss\nstep,1,0.5,7\n' > %t/wide.csv
// RUN: not nnc-run plot %t/wide.csv -o %t/x.svg 2>&1 | FileCheck %s --check-prefix=WIDE
// WIDE: nnc-run: error: {{.*}}wide.csv:2: 4 fields, but the header has 3 columns
// RUN: printf '{"kind": "eval", "step": 1, "accuracy": 50}\n{"kind": "advice", "step": 1, "topic": "memory", "text": "x"}\n' > %t/no-steps.jsonl
// RUN: not nnc-run plot %t/no-steps.jsonl -o %t/x.svg 2>&1 | FileCheck %s --check-prefix=NO-STEPS
// NO-STEPS: nnc-run: error: metrics log '{{.*}}no-steps.jsonl' has no step records
// RUN: not ls %t/x.svg

// An output that cannot be written: exit 1, naming it, and nothing left
// behind.
// RUN: not nnc-run plot %S/Inputs/plot/f32.jsonl -o %t/nowhere/x.svg 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-DIR
// NO-DIR: nnc-run: error: cannot write plot '{{.*}}nowhere/x.svg': No such file or directory
// RUN: mkdir %t/folder.svg
// RUN: not nnc-run plot %S/Inputs/plot/f32.jsonl -o %t/folder.svg 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FOLDER
// FOLDER: nnc-run: error: cannot write plot '{{.*}}folder.svg': Is a directory
// RUN: not ls %t/folder.svg.tmp
