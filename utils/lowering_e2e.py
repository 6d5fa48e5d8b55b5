#!/usr/bin/python3
"""Runs ONNX backend node tests end to end through nnc's linalg lowering.

Developer tool for checking the numerics of --nnc-convert-to-linalg against
the expected outputs of the ONNX backend node tests
(/usr/share/libonnx-testdata/data/node/test_<name>/). For each test it

  1. imports model.onnx with `nnc-translate --import-onnx` (retrying with
     --onnx-bind-integer-inputs=<test>/test_data_set_0 when that is needed),
  2. checks that `nnc-opt --nnc-convert-to-linalg` lowers it,
  3. appends a main() that calls the model with the inputs of test_data_set_0
     as constants and prints every result (integers and booleans as i64,
     floats as f64),
  4. lowers it, runs the CPU pipeline (one-shot-bufferize ... convert-to-llvm)
     and JITs it with mlir-runner,
  5. compares with output_N.pb at rtol 1e-3, atol 1e-7 (NaNs must match;
     unsigned outputs compare modulo 2^bits, since nnc's integers are
     signless and print as signed).

Usage:
  utils/lowering_e2e.py [-j N] [--bin DIR] [--keep DIR] [--all] [TEST...]

TEST is a node test name (test_abs) or a regular expression over the names
(default: every test). Tests that do not import or do not lower are reported
as SKIP-IMPORT / SKIP-LOWER and not counted; tests of the nn family (conv,
pools, batch/layer/instance norm, LRN, NLL and softmax cross-entropy losses,
lowered elsewhere) are skipped unless --all is given (their *_expanded
variants, made of plain ops, are kept). Each counted test prints PASS or
FAIL with the first mismatching element; a summary line ends the output.

--pipeline-opt names another tool for the CPU pipeline (e.g. upstream
mlir-opt, for nnc-opt builds without --convert-bufferization-to-memref).

Environment: NNC_BIN (default build/bin) holds nnc-translate and nnc-opt;
MLIR_BIN (default /usr/lib/llvm-22/bin) holds mlir-runner. Needs numpy.
"""
import argparse
import concurrent.futures
import os
import re
import struct
import subprocess
import sys

import numpy as np

NODE_DIR = '/usr/share/libonnx-testdata/data/node'
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIPELINE = ('--one-shot-bufferize=bufferize-function-boundaries '
            '--buffer-deallocation-pipeline --convert-bufferization-to-memref '
            '--convert-linalg-to-loops --expand-strided-metadata --lower-affine '
            '--convert-math-to-libm --convert-scf-to-cf --convert-to-llvm '
            '--reconcile-unrealized-casts').split()
NN_FAMILY = re.compile(r'^test_(.*conv|.*pool|batchnorm|layer_normalization|'
                       r'instancenorm|group_normalization|lrn|nllloss|sce|'
                       r'.*cross_entropy)')
RTOL, ATOL = 1e-3, 1e-7
TIMEOUT = 120

# --- a tiny TensorProto decoder ------------------------------------------


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return r, i


def signed64(v):
    return v - 2**64 if v >= 2**63 else v


# ONNX TensorProto.DataType -> numpy dtype (bf16 decoded separately).
DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16,
          6: np.int32, 7: np.int64, 9: np.bool_, 10: np.float16,
          11: np.float64, 12: np.uint32, 13: np.uint64, 16: 'bf16'}


def parse_tensor(path):
    """Returns (array, onnx data type) of a serialized TensorProto."""
    b = open(path, 'rb').read()
    i = 0
    dims, dt, raw = [], None, None
    fl, dbl, i32, i64, u64 = [], [], [], [], []

    def packed(data, out, conv):
        j = 0
        while j < len(data):
            v, j = varint(data, j)
            out.append(conv(v))

    while i < len(b):
        key, i = varint(b, i)
        f, w = key >> 3, key & 7
        if w == 0:
            v, i = varint(b, i)
            if f == 1:
                dims.append(v)
            elif f == 2:
                dt = v
            elif f == 5:
                i32.append(signed64(v))
            elif f == 7:
                i64.append(signed64(v))
            elif f == 11:
                u64.append(v)
        elif w == 2:
            n, i = varint(b, i)
            data = b[i:i + n]
            i += n
            if f == 9:
                raw = data
            elif f == 1:
                packed(data, dims, int)
            elif f == 4:
                fl += struct.unpack('<%df' % (n // 4), data)
            elif f == 5:
                packed(data, i32, signed64)
            elif f == 7:
                packed(data, i64, signed64)
            elif f == 10:
                dbl += struct.unpack('<%dd' % (n // 8), data)
            elif f == 11:
                packed(data, u64, int)
        elif w == 5:
            v = struct.unpack('<f', b[i:i + 4])[0]
            if f == 4:
                fl.append(v)
            i += 4
        elif w == 1:
            v = struct.unpack('<d', b[i:i + 8])[0]
            if f == 10:
                dbl.append(v)
            i += 8
    if dt not in DTYPES:
        raise ValueError('unsupported data type %s' % dt)
    t = DTYPES[dt]
    if t == 'bf16':
        if raw is not None:
            bits = np.frombuffer(raw, dtype=np.uint16)
        else:
            bits = np.array(i32, dtype=np.uint16)
        a = bf16_from_bits(bits)
    elif raw is not None:
        a = np.frombuffer(raw, dtype=t)
    elif t == np.float32:
        a = np.array(fl, dtype=t)
    elif t == np.float64:
        a = np.array(dbl, dtype=t)
    elif t == np.int64:
        a = np.array(i64, dtype=t)
    elif t in (np.uint32, np.uint64):
        a = np.array(u64, dtype=t)
    elif t == np.float16:
        a = np.array(i32, dtype=np.uint16).view(np.float16)
    else:
        a = np.array(i32).astype(t)
    return a.reshape(dims), dt


def bf16_from_bits(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def mlir_elem(a, dt):
    if dt == 16:
        return 'bf16'
    return {np.float32: 'f32', np.float64: 'f64', np.float16: 'f16',
            np.int64: 'i64', np.uint64: 'i64', np.int32: 'i32',
            np.uint32: 'i32', np.int16: 'i16', np.uint16: 'i16',
            np.int8: 'i8', np.uint8: 'i8', np.bool_: 'i1'}[a.dtype.type]


def tensor_type(shape, et):
    return 'tensor<' + ''.join('%dx' % d for d in shape) + et + '>'


def constant(a, dt, et):
    tt = tensor_type(a.shape, et)
    if a.size == 0:
        return None
    if et == 'i1':
        def nested(x):
            if x.ndim == 0:
                return 'true' if x else 'false'
            return '[' + ', '.join(nested(y) for y in x) + ']'
        return 'dense<%s> : %s' % (nested(a), tt)
    if et == 'bf16':
        data = (a.astype(np.float32).view(np.uint32) >> 16).astype('<u2')
    else:
        data = a.astype(a.dtype.newbyteorder('<'))
    return 'dense<"0x%s"> : %s' % (data.tobytes().hex().upper(), tt)


# --- one test ---------------------------------------------------------------


def sh(args, stdin=None):
    return subprocess.run(args, input=stdin, capture_output=True, text=True,
                          timeout=TIMEOUT)


def first_line(text):
    lines = [l for l in text.strip().splitlines() if 'error' in l] or \
        text.strip().splitlines() or ['?']
    return lines[0][:200]


def import_test(test, nnc_bin):
    d = os.path.join(NODE_DIR, test)
    model = os.path.join(d, 'model.onnx')
    p = sh([nnc_bin + '/nnc-translate', '--import-onnx', model])
    if p.returncode:
        p = sh([nnc_bin + '/nnc-translate', '--import-onnx', model,
                '--onnx-bind-integer-inputs=' +
                os.path.join(d, 'test_data_set_0')])
    return p


def build_main(text, inputs, outputs):
    """The imported module with @main renamed @model and a new @main that
    prints the results; None and a reason when inputs cannot be mapped."""
    m = re.search(r'func\.func @main\((.*?)\) -> (.*?) \{', text)
    if not m:
        m0 = re.search(r'func\.func @main\((.*?)\) \{', text)
        if not m0:
            return None, 'no @main'
        return None, '@main has no results'
    argtypes = re.findall(r'%arg\d+: (tensor<[^>]*>)', m.group(1))
    res = m.group(2).strip()
    if res.startswith('('):
        res = res[1:-1]
    restypes = re.findall(r'tensor<[^>]*>', res)
    # Arguments are the graph inputs minus those bound as constants: map
    # them to the data set's inputs by type, in order.
    chosen, j = [], 0
    for t in argtypes:
        if t.endswith('xbf16>'):
            # Older data sets store bfloat16 tensors as UINT16 bits.
            for k, (a, dt) in enumerate(inputs):
                if dt == 4:
                    inputs[k] = (bf16_from_bits(a), 16)
        while j < len(inputs) and tensor_type(
                inputs[j][0].shape, mlir_elem(*inputs[j])) != t:
            j += 1
        if j == len(inputs):
            return None, 'cannot map the arguments to the inputs'
        chosen.append(inputs[j])
        j += 1
    body = text.replace('@main(', '@model(').rstrip()
    assert body.endswith('}')
    body = body[:-1]
    lines = [
        '  func.func private @printMemrefF64(memref<*xf64>)',
        '  func.func private @printMemrefI64(memref<*xi64>)',
        '  func.func @printF(%t: tensor<*xf64>) {',
        '    %m = bufferization.to_buffer %t : tensor<*xf64> to memref<*xf64>',
        '    call @printMemrefF64(%m) : (memref<*xf64>) -> ()', '    return',
        '  }',
        '  func.func @printI(%t: tensor<*xi64>) {',
        '    %m = bufferization.to_buffer %t : tensor<*xi64> to memref<*xi64>',
        '    call @printMemrefI64(%m) : (memref<*xi64>) -> ()', '    return',
        '  }',
        '  func.func @main() {']
    names = []
    for i, (a, dt) in enumerate(chosen):
        c = constant(a, dt, mlir_elem(a, dt))
        if c is None:
            # An empty tensor: tensor.empty is as good as any constant.
            lines.append('    %%in%d = tensor.empty() : %s' %
                         (i, tensor_type(a.shape, mlir_elem(a, dt))))
        else:
            lines.append('    %%in%d = arith.constant %s' % (i, c))
        names.append('%%in%d' % i)
    call = 'func.call @model(%s) : (%s) -> ' % (', '.join(names),
                                                  ', '.join(argtypes))
    if len(restypes) == 1:
        lines.append('    %r = ' + call + restypes[0])
    else:
        lines.append('    %%r:%d = %s(%s)' % (len(restypes), call,
                                              ', '.join(restypes)))
    printed = []
    for i, t in enumerate(restypes):
        rv = '%%r#%d' % i if len(restypes) > 1 else '%r'
        shape = [int(x) for x in re.findall(r'(\d+)x', t)]
        et = t[:-1].split('x')[-1] if shape else t[7:-1]
        n = int(np.prod(shape)) if shape else 1
        if n == 0:
            continue
        pt = 'f64' if et in ('f16', 'bf16', 'f32', 'f64') else 'i64'
        v = rv
        if et != pt:
            lines.append('    %%c%d = nnc.cast %s : %s to %s' %
                         (i, v, t, tensor_type(shape, pt)))
            v = '%%c%d' % i
        lines.append('    %%f%d = nnc.reshape %s : %s -> tensor<%dx%s>' %
                     (i, v, tensor_type(shape, pt), n, pt))
        lines.append('    %%u%d = tensor.cast %%f%d : tensor<%dx%s> to '
                     'tensor<*x%s>' % (i, i, n, pt, pt))
        lines.append('    call @print%s(%%u%d) : (tensor<*x%s>) -> ()' %
                     ('F' if pt == 'f64' else 'I', i, pt))
        printed.append(i)
    lines += ['    return', '  }', '}']
    return body + '\n'.join(lines) + '\n', (restypes, printed)


def parse_printed(line):
    vals = line.replace('[', ' ').replace(']', ' ').replace(',', ' ').split()
    return np.array([float(x) for x in vals], dtype=np.float64)


def compare(got, exp, dt):
    e = exp.flatten()
    if got.shape != e.shape:
        return 'shape %s vs %s' % (got.shape, e.shape)
    if dt in (2, 4, 12, 13):  # unsigned: printed as signed
        bits = exp.dtype.itemsize * 8
        got = np.array([int(v) % (1 << bits) for v in got], dtype=np.float64)
    e = e.astype(np.float64)
    close = np.isclose(got, e, rtol=RTOL, atol=ATOL, equal_nan=True)
    if close.all():
        return None
    k = int(np.argmin(close))
    return 'element %d: got %r want %r (%d/%d differ)' % (
        k, got[k], e[k], int((~close).sum()), e.size)


def run_test(test, nnc_bin, mlir_bin, keep, pipeline_opt=None):
    d = os.path.join(NODE_DIR, test)
    ds = os.path.join(d, 'test_data_set_0')
    p = import_test(test, nnc_bin)
    if p.returncode:
        return 'SKIP-IMPORT', first_line(p.stderr)
    text = p.stdout
    p = sh([nnc_bin + '/nnc-opt', '--nnc-convert-to-linalg'], text)
    if p.returncode:
        return 'SKIP-LOWER', first_line(p.stderr)

    def load(kind):
        out, k = [], 0
        while os.path.exists(os.path.join(ds, '%s_%d.pb' % (kind, k))):
            out.append(parse_tensor(os.path.join(ds, '%s_%d.pb' % (kind, k))))
            k += 1
        return out

    try:
        inputs, outputs = load('input'), load('output')
    except (ValueError, KeyError) as ex:
        return 'SKIP-DATA', str(ex)
    full, info = build_main(text, inputs, outputs)
    if full is None:
        return 'SKIP-MAP', info
    restypes, printed = info
    if keep:
        open(os.path.join(keep, test + '.mlir'), 'w').write(full)
    p = sh([nnc_bin + '/nnc-opt', '--nnc-convert-to-linalg'], full)
    if p.returncode:
        return 'FAIL', 'lower: ' + first_line(p.stderr)
    p = sh([pipeline_opt or nnc_bin + '/nnc-opt'] + PIPELINE, p.stdout)
    if p.returncode:
        return 'FAIL', 'compile: ' + first_line(p.stderr)
    libs = ','.join(os.path.join(os.path.dirname(mlir_bin), 'lib', l)
                    for l in ('libmlir_runner_utils.so',
                              'libmlir_c_runner_utils.so'))
    p = sh([mlir_bin + '/mlir-runner', '-e', 'main',
            '-entry-point-result=void', '-shared-libs=' + libs], p.stdout)
    if p.returncode:
        return 'FAIL', 'run: ' + first_line(p.stderr)
    data = [l for l in p.stdout.splitlines() if l.startswith('[')]
    if len(data) != len(printed):
        return 'FAIL', 'printed %d results, expected %d' % (len(data),
                                                           len(printed))
    if len(outputs) != len(restypes):
        return 'FAIL', '%d results, %d expected outputs' % (len(restypes),
                                                            len(outputs))
    for k, i in enumerate(printed):
        exp, dt = outputs[i]
        if dt == 4 and restypes[i].endswith('xbf16>'):
            exp, dt = bf16_from_bits(exp), 16
        err = compare(parse_printed(data[k]), exp, dt)
        if err:
            return 'FAIL', 'output %d %s' % (i, err)
    for i, (exp, dt) in enumerate(outputs):
        if i not in printed and exp.size != 0:
            return 'FAIL', 'output %d is empty, expected %d elements' % (
                i, exp.size)
    return 'PASS', ''


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('tests', nargs='*')
    ap.add_argument('-j', type=int, default=1, help='parallel tests')
    ap.add_argument('--bin', default=os.environ.get(
        'NNC_BIN', os.path.join(ROOT, 'build', 'bin')))
    ap.add_argument('--mlir-bin', default=os.environ.get(
        'MLIR_BIN', '/usr/lib/llvm-22/bin'))
    ap.add_argument('--pipeline-opt',
                    help='mlir-opt-like tool for the CPU pipeline '
                    '(default: nnc-opt)')
    ap.add_argument('--keep', help='directory for the generated modules')
    ap.add_argument('--all', action='store_true',
                    help='include the nn-family tests')
    ap.add_argument('-q', action='store_true', help='print only failures')
    args = ap.parse_args()
    names = sorted(n for n in os.listdir(NODE_DIR) if n.startswith('test_'))
    if args.tests:
        picked = []
        for t in args.tests:
            picked += [n for n in names if n == t or re.fullmatch(t, n)]
        names = picked
    if not args.all:
        names = [n for n in names
                 if not NN_FAMILY.match(n) or n.endswith('_expanded')]
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    counts = {}

    def one(name):
        try:
            return name, run_test(name, args.bin, args.mlir_bin, args.keep,
                                  args.pipeline_opt)
        except subprocess.TimeoutExpired:
            return name, ('FAIL', 'timeout')
        except Exception as ex:  # report and go on
            return name, ('FAIL', 'harness: %r' % ex)

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.j) as pool:
        for name, (status, why) in pool.map(one, names):
            counts[status] = counts.get(status, 0) + 1
            if not args.q or status == 'FAIL':
                print('%-60s %s %s' % (name, status, why), flush=True)
    run = counts.get('PASS', 0) + counts.get('FAIL', 0)
    print('summary: %d run, %d pass, %d fail; skipped: %s' % (
        run, counts.get('PASS', 0), counts.get('FAIL', 0),
        ', '.join('%s %d' % (k, v) for k, v in sorted(counts.items())
                  if k.startswith('SKIP')) or 'none'))
    return 1 if counts.get('FAIL') else 0


if __name__ == '__main__':
    sys.exit(main())
