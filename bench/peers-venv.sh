#!/usr/bin/env bash
#===- bench/peers-venv.sh - a virtual environment with nnc's peers --------===#
#
# Usage: bench/peers-venv.sh [DIR]
#
# Makes (or brings up to date) a virtual environment at DIR (default
# build/bench/venv, where bench/run.py looks for it) with PyTorch 2 (for
# torch.compile), torchvision (the MobileNetV2 case), onnx and onnxruntime
# from PyPI, for bench/peers.py. Inductor compiles C++ on the CPU, so g++
# and Python's headers come from Debian's packages, with python3-venv.
# PyPI's PyTorch brings its CUDA libraries too (some GB); nothing else of
# the project uses this environment, and bench/run.py leaves its columns
# empty without it.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:-$root/build/bench/venv}

missing=()
for p in python3-venv python3-dev g++; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "peers-venv.sh: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi

[[ -x "$dir/bin/python" ]] || /usr/bin/python3 -m venv "$dir"
"$dir/bin/python" -m pip install -q --upgrade pip
"$dir/bin/python" -m pip install -q torch torchvision onnx onnxruntime numpy
"$dir/bin/python" - <<'PY'
import onnxruntime, torch, torchvision
print("peers-venv.sh: PyTorch %s (torch.compile: %s), torchvision %s, "
      "ONNX Runtime %s" % (torch.__version__, hasattr(torch, "compile"),
                           torchvision.__version__, onnxruntime.__version__))
PY
echo "peers-venv.sh: $dir/bin/python"
