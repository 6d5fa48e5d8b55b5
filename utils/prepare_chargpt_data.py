#!/usr/bin/python3
"""Build the character-level training data of examples/chargpt/ from Python's own sources.

The text is the Python standard library as installed on this machine: every
top-level /usr/lib/python3.11/*.py (or, without 3.11, the highest
/usr/lib/python3.N/ that has .py files), read in sorted order and joined.
Each character becomes an id (the mapping the model was exported for,
examples/chargpt/README.md):

  0        newline
  1..95    the printable ASCII characters ' ' (32) .. '~' (126), id = code - 31
  96       anything else (a tab is first expanded to 4 spaces; other control
           characters and non-ASCII letters are rare in these sources)

The first 90% of the id stream is for training, the rest for validation. From
each part the script draws windows of 33 consecutive ids at uniformly random
offsets (numpy's PCG64 generator, --seed, default 0) and writes

  train.npz   tokens i64 [--train-samples, 32] and labels i64 [samples, 32]
  val.npz     tokens i64 [--val-samples, 32]   and labels i64 [samples, 32]

where tokens are the first 32 ids of a window and labels the last 32 (the next
character at every position), flattened the way the model flattens its logits
([batch * 32, vocabulary]): label row 32 i + t belongs to sample i, position t.

The data are not committed: they depend on the Python installed and are built
when needed, in well under a second plus the time to read the sources:

  /usr/bin/python3 utils/prepare_chargpt_data.py [--out-dir DIR] \
      [--train-samples 8192] [--val-samples 1024] [--seed 0]

Needs numpy only.
"""

import argparse
import glob
import os
import re
import sys

import numpy as np

from npz_io import save_npz

SEQ = 32
VOCAB = 97
UNKNOWN = 96


def source_files():
    preferred = sorted(glob.glob("/usr/lib/python3.11/*.py"))
    if preferred:
        return preferred
    dirs = [d for d in glob.glob("/usr/lib/python3*/")
            if re.fullmatch(r"python3\.\d+", os.path.basename(d.rstrip("/")))]
    dirs.sort(key=lambda d: int(d.rstrip("/").rsplit(".", 1)[1]), reverse=True)
    for d in dirs + sorted(glob.glob("/usr/lib/python3*/")):
        files = sorted(glob.glob(os.path.join(d, "*.py")))
        if files:
            return files
    raise SystemExit("no Python sources under /usr/lib/python3*/")


def encode(text):
    """Maps the text to ids 0..96 (see the module docstring)."""
    codes = np.frombuffer(text.replace("\t", "    ").encode("utf-32-le"),
                          dtype=np.uint32).astype(np.int64)
    ids = np.full(codes.shape, UNKNOWN, dtype=np.int64)
    ids[codes == 10] = 0
    printable = (codes >= 32) & (codes <= 126)
    ids[printable] = codes[printable] - 31
    return ids


def decode(ids):
    return "".join("\n" if i == 0 else chr(i + 31) if i < UNKNOWN else "?"
                   for i in ids)


def windows(stream, count, rng):
    starts = rng.integers(0, len(stream) - SEQ, size=count)
    full = stream[starts[:, None] + np.arange(SEQ + 1)]
    return full[:, :SEQ].copy(), full[:, 1:].copy()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir",
                        default=os.path.normpath(
                            os.path.join(here, "..", "examples", "chargpt",
                                         "data")))
    parser.add_argument("--train-samples", type=int, default=8192)
    parser.add_argument("--val-samples", type=int, default=1024)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    files = source_files()
    parts = []
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            parts.append(f.read())
    text = "".join(parts)
    stream = encode(text)
    split = int(len(stream) * 0.9)
    rng = np.random.Generator(np.random.PCG64(args.seed))
    os.makedirs(args.out_dir, exist_ok=True)
    print("%d files from %s, %d characters (%d unknown), %d for training, "
          "%d for validation" %
          (len(files), os.path.dirname(files[0]), len(stream),
           int(np.count_nonzero(stream == UNKNOWN)), split,
           len(stream) - split))
    for name, part, count in [("train", stream[:split], args.train_samples),
                              ("val", stream[split:], args.val_samples)]:
        tokens, labels = windows(part, count, rng)
        path = os.path.join(args.out_dir, name + ".npz")
        save_npz(path, {"tokens": tokens, "labels": labels})
        print("%s: tokens %s, labels %s, %d bytes" %
              (path, list(tokens.shape), list(labels.shape),
               os.path.getsize(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
