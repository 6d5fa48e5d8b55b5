#!/usr/bin/python3
"""Export six PyTorch models to ONNX with dynamic axes, with reference data.

Builds each model with fixed seeds (or, for the two torchvision models, with
weights from a formula), exports it with torch.onnx.export (opset 17, constant
folding, eval mode) with its batch dimension, and for the GPT also its sequence
dimension, dynamic as a user would declare them (dynamic_axes), and saves next to
each model.onnx two reference input sets as inputs_<set>.npz and PyTorch's
outputs for them as expected_<set>.npz (uncompressed, one array per input or
output, named after it):

  test/Models/gpt/          a GPT-style decoder written by hand like minGPT:
                            token embedding (vocabulary 64, d_model 32) plus a
                            learned positional embedding of torch.arange(T)
                            (up to 16 positions), two pre-LayerNorm blocks of
                            4-head causal self-attention (view(B, T, 4, 8) with
                            B, T, C from x.size(), a registered tril mask
                            sliced [:, :, :T, :T], masked_fill -inf, softmax)
                            and a GELU MLP (32 to 128 to 32), a final LayerNorm
                            and a Linear LM head (32 to 64). Input idx i64
                            [batch, seq], output logits f32 [batch, 64, seq]
                            (class axis 1, as F.cross_entropy takes it). Sets
                            b2_t8 and b3_t5, and train.npz: idx and labels
                            (next-token targets), i64 [10, 8].
  test/Models/vit/          a ViT-style encoder: Conv2d 4x4 stride 4 patch
                            embedding (3 to 32, 16 patches), a class token
                            expanded to the batch, a learned positional
                            embedding (17 positions), two pre-LayerNorm blocks
                            of 4-head self-attention written by hand
                            (reshape(B, N, 4, 8) with B, N from the shape) and
                            a GELU MLP (32 to 64 to 32), a final LayerNorm and a
                            Linear head (32 to 10) on the class token. Input
                            images f32 [batch, 3, 16, 16], output logits f32
                            [batch, 10]. Sets b1 and b3.
  test/Models/fpn/          a feature-pyramid-style network: three levels of
                            3x3 convolutions (3 to 8 channels, then stride 2
                            twice), a top-down path that upsamples each level
                            to the size of the one above with
                            F.interpolate(size=lateral.shape[-2:],
                            mode="nearest") and adds the 1x1 lateral, and a
                            1x1 head (8 to 4). Batch, height and width are
                            dynamic, so the Resize sizes come from Shape.
                            Input images f32 [batch, 3, height, width], output
                            features f32 [batch, 4, height, width]. Sets
                            b2_h9_w13 (odd sizes: 9x13 to 5x7 to 3x4 and back)
                            and b1_h16_w20.
  test/Models/unet/         a one-level U-Net: a stride-2 3x3 convolution (3 to
                            8), F.interpolate(scale_factor=2,
                            mode="nearest") back up, concatenated with a 1x1
                            skip convolution of the input (3 to 8) and a 3x3
                            head (16 to 2). Batch, height and width are
                            dynamic, so the Resize has constant scales on
                            dynamic dimensions. Input images f32 [batch, 3,
                            height, width] (even height and width), output
                            masks f32 [batch, 2, height, width]. Sets
                            b2_h8_w12 and b1_h16_w6.
  test/Models/resnet18/     torchvision.models.resnet18(num_classes=10).
  test/Models/mobilenetv2/  torchvision.models.mobilenet_v2(num_classes=10).
                            Input images f32 [batch, 3, 32, 32], output logits
                            f32 [batch, 10]. Sets b1 and b2.

ResNet-18 and MobileNetV2 have millions of parameters, so their weights are not
committed. Every parameter and BatchNorm statistic is set from the formula in
test/Models/weights.py (no random number generator), the BatchNorm layers stay
BatchNormalization ops (not folded into the convolutions), and those tensors are
saved as ONNX external data: model.onnx holds the graph and the small
non-parameter constants, weights.json lists the external tensors (name, dtype,
shape, offset and length in weights.bin, the formula's parameters). The script
checks that `test/Models/weights.py MODEL_DIR OUT_DIR`, which needs only numpy,
reproduces the exported weights.bin byte for byte, then deletes weights.bin.

The files are committed: nothing in the build or the tests needs PyTorch. To
regenerate them (deterministic for a given PyTorch version), install Debian's
PyTorch, torchvision and ONNX and run the script with Debian's Python:

  sudo apt-get install python3-torch python3-torchvision python3-onnx
  /usr/bin/python3 utils/export_dynamic_models.py [--out-dir test/Models]

The script checks each exported file with onnx.checker (the external-data models
after regenerating their weights into a temporary folder), checks that the dynamic
shape computations are in the graphs, and prints the ops and sizes of each model.
"""

import argparse
import collections
import hashlib
import importlib.util
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import onnx
import onnx.external_data_helper
import onnx.numpy_helper
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

OPSET = 17
ALIGN = 64  # offset alignment of the tensors in weights.bin
HERE = os.path.dirname(os.path.abspath(__file__))
WEIGHTS_PY = os.path.normpath(
    os.path.join(HERE, "..", "test", "Models", "weights.py"))


def load_weights_module():
    spec = importlib.util.spec_from_file_location("nnc_model_weights",
                                                  WEIGHTS_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


weights = load_weights_module()

# ---------------------------------------------------------------------------
# GPT-style decoder (minGPT)
# ---------------------------------------------------------------------------


class CausalSelfAttention(nn.Module):

    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.n_embd, self.n_head = n_embd, n_head
        self.head_dim = n_embd // n_head
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.register_buffer(
            "bias",
            torch.tril(torch.ones(block_size,
                                  block_size)).view(1, 1, block_size,
                                                    block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        # The head size is static: math.sqrt(k.size(-1)) would turn a traced
        # size into a Python float (a TracerWarning).
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.head_dim))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class GPTBlock(nn.Module):

    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(),
                                 nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):

    def __init__(self, vocab=64, block_size=16, n_embd=32, n_head=4,
                 n_layer=2):
        super().__init__()
        self.block_size = block_size
        self.wte = nn.Embedding(vocab, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.h = nn.ModuleList(
            [GPTBlock(n_embd, n_head, block_size) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab)

    def forward(self, idx):
        B, T = idx.size()
        pos = torch.arange(0, T, dtype=torch.long, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        # [B, T, vocab] -> [B, vocab, T]: the class axis second, as
        # F.cross_entropy (and nnc's cross-entropy) take it.
        return logits.transpose(1, 2)


def randomize_layernorms(model):
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)


def gpt_train_set():
    """10 sequences of 9 tokens from arithmetic progressions mod 64 (no RNG):
    idx is the first 8 tokens, labels the next token at each position."""
    seqs = np.array([[(3 + 7 * i + (1 + i % 3) * j) % 64 for j in range(9)]
                     for i in range(10)],
                    dtype=np.int64)
    return {"idx": seqs[:, :8].copy(), "labels": seqs[:, 1:].copy()}


def make_gpt():
    torch.manual_seed(2)
    model = GPT()
    randomize_layernorms(model)
    model.eval()
    rng = np.random.default_rng(2)
    sets = collections.OrderedDict()
    for b, t in [(2, 8), (3, 5)]:
        sets["b%d_t%d" % (b, t)] = {
            "idx": rng.integers(0, 64, size=(b, t), dtype=np.int64)
        }
    return dict(model=model, sets=sets, outputs=["logits"],
                dynamic_axes={
                    "idx": {0: "batch", 1: "seq"},
                    "logits": {0: "batch", 2: "seq"}
                },
                required=["Shape", "Gather", "Concat", "Reshape", "Range",
                          "Slice", "Equal", "Where"],
                extra={"train.npz": gpt_train_set()})


# ---------------------------------------------------------------------------
# ViT-style encoder
# ---------------------------------------------------------------------------


class ViTAttention(nn.Module):

    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        q = self.q(x).reshape(B, N, self.heads, self.head_dim).transpose(1, 2)
        k = self.k(x).reshape(B, N, self.heads, self.head_dim).transpose(1, 2)
        v = self.v(x).reshape(B, N, self.heads, self.head_dim).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * self.head_dim**-0.5
        att = att.softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj(y)


class ViTBlock(nn.Module):

    def __init__(self, dim, heads, mlp):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = ViTAttention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, mlp), nn.GELU(),
                                 nn.Linear(mlp, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class ViT(nn.Module):

    def __init__(self, image=16, patch=4, dim=32, heads=4, mlp=64, depth=2,
                 num_classes=10):
        super().__init__()
        patches = (image // patch)**2
        self.patch_embed = nn.Conv2d(3, dim, patch, patch)
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.1)
        self.pos = nn.Parameter(torch.randn(1, patches + 1, dim) * 0.1)
        self.blocks = nn.ModuleList(
            [ViTBlock(dim, heads, mlp) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, images):
        x = self.patch_embed(images)  # [B, 32, 4, 4]
        x = x.flatten(2).transpose(1, 2)  # [B, 16, 32]
        B = x.shape[0]
        cls = self.cls.expand(B, -1, -1)
        x = torch.cat([cls, x], dim=1) + self.pos
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x)[:, 0])


def make_vit():
    torch.manual_seed(3)
    model = ViT()
    randomize_layernorms(model)
    model.eval()
    gen = torch.Generator().manual_seed(3)
    sets = collections.OrderedDict()
    for b in (1, 3):
        sets["b%d" % b] = {
            "images": torch.randn(b, 3, 16, 16, generator=gen).numpy()
        }
    return dict(model=model, sets=sets, outputs=["logits"],
                dynamic_axes={
                    "images": {0: "batch"},
                    "logits": {0: "batch"}
                },
                required=["Shape", "Gather", "Concat", "Reshape", "Expand"])


class FPN(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.c1 = nn.Conv2d(3, channels, 3, padding=1)
        self.c2 = nn.Conv2d(channels, channels, 3, stride=2, padding=1)
        self.c3 = nn.Conv2d(channels, channels, 3, stride=2, padding=1)
        self.l1 = nn.Conv2d(channels, channels, 1)
        self.l2 = nn.Conv2d(channels, channels, 1)
        self.head = nn.Conv2d(channels, 4, 1)

    def forward(self, images):
        a = F.relu(self.c1(images))
        b = F.relu(self.c2(a))
        c = F.relu(self.c3(b))
        p2 = self.l2(b) + F.interpolate(c, size=b.shape[-2:], mode="nearest")
        p1 = self.l1(a) + F.interpolate(p2, size=a.shape[-2:], mode="nearest")
        return self.head(p1)


def make_image_model(model_class, seed, shapes, output, required):
    """A convolutional model with dynamic batch, height and width, and one
    reference set of random images per (batch, height, width) in `shapes`."""
    torch.manual_seed(seed)
    model = model_class().eval()
    gen = torch.Generator().manual_seed(seed)
    sets = collections.OrderedDict()
    for b, h, w in shapes:
        sets["b%d_h%d_w%d" % (b, h, w)] = {
            "images": torch.randn(b, 3, h, w, generator=gen).numpy()
        }
    return dict(model=model, sets=sets, outputs=[output],
                dynamic_axes={
                    "images": {0: "batch", 2: "height", 3: "width"},
                    output: {0: "batch", 2: "height", 3: "width"}
                },
                required=required)


def make_fpn():
    return make_image_model(FPN, 5, ((2, 9, 13), (1, 16, 20)), "features",
                            ["Shape", "Resize"])

class UNet(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.down = nn.Conv2d(3, channels, 3, stride=2, padding=1)
        self.skip = nn.Conv2d(3, channels, 1)
        self.head = nn.Conv2d(2 * channels, 2, 3, padding=1)

    def forward(self, images):
        d = F.relu(self.down(images))
        up = F.interpolate(d, scale_factor=2, mode="nearest")
        return self.head(torch.cat([self.skip(images), up], 1))


def make_unet():
    return make_image_model(UNet, 6, ((2, 8, 12), (1, 16, 6)), "masks",
                            ["Resize", "Concat"])

# ---------------------------------------------------------------------------
# torchvision models with formula weights
# ---------------------------------------------------------------------------


def formula_weights(model, gains):
    """Sets every float parameter and buffer of model from weights.values();
    returns {state_dict name: manifest entry without offset/length}.

    Tensor k in state_dict order gets a + b * u, u uniform in [0, 1):
    conv and linear weights +-gain * sqrt(3 / fan_in) (variance gain^2 /
    fan_in; gains[module class name], default 1), conv and linear biases
    +-0.1, BatchNorm weight 0.5 to 1.5 times gains["bn"], bias and running
    mean +-0.1, running var 0.5 to 1.5."""
    modules = dict(model.named_modules())
    state = model.state_dict()
    entries = collections.OrderedDict()
    new_state = collections.OrderedDict()
    for k, (name, tensor) in enumerate(state.items()):
        if not tensor.is_floating_point():
            new_state[name] = tensor  # num_batches_tracked
            continue
        owner, _, leaf = name.rpartition(".")
        module = modules[owner]
        fan_in = None
        if isinstance(module, (nn.Conv2d, nn.Linear)) and leaf == "weight":
            fan_in = tensor[0].numel()
            gain = gains.get(type(module).__name__, 1.0)
            bound = gain * math.sqrt(3.0 / fan_in)
            kind, a, b = "uniform_fan_in", -bound, 2 * bound
        elif isinstance(module, (nn.Conv2d, nn.Linear)) and leaf == "bias":
            kind, a, b = "bias", -0.1, 0.2
        elif isinstance(module, nn.BatchNorm2d):
            g = gains.get("bn", 1.0)
            kind, a, b = {
                "weight": ("bn_weight", 0.5 * g, 1.0 * g),
                "bias": ("bn_bias", -0.1, 0.2),
                "running_mean": ("bn_running_mean", -0.1, 0.2),
                "running_var": ("bn_running_var", 0.5, 1.0),
            }[leaf]
        else:
            raise ValueError("no formula for %s (%s)" %
                             (name, type(module).__name__))
        data = weights.values(k, tensor.numel(), a, b)
        new_state[name] = torch.from_numpy(data.reshape(tuple(tensor.shape)))
        entry = collections.OrderedDict(name=name, dtype="float32",
                                        shape=list(tensor.shape), k=k, a=a,
                                        b=b, kind=kind)
        if fan_in is not None:
            entry["fan_in"] = fan_in
        entries[name] = entry
    model.load_state_dict(new_state)
    return entries


def make_torchvision(builder, gains, seed):
    model = builder(num_classes=10)
    entries = formula_weights(model, gains)
    model.eval()
    gen = torch.Generator().manual_seed(seed)
    sets = collections.OrderedDict()
    for b in (1, 2):
        sets["b%d" % b] = {
            "images": torch.randn(b, 3, 32, 32, generator=gen).numpy()
        }
    return dict(model=model, sets=sets, outputs=["logits"],
                dynamic_axes={
                    "images": {0: "batch"},
                    "logits": {0: "batch"}
                },
                required=["Conv", "BatchNormalization"], external=entries,
                rebuild=lambda: builder(num_classes=10))


def make_resnet18():
    # In eval mode the formula's running statistics do not normalize the
    # activations, which grow through the eight residual blocks: with
    # BatchNorm weights averaging 1 the logits have a standard deviation of
    # about 27, averaging 0.75 about 3.
    return make_torchvision(torchvision.models.resnet18, {
        "Conv2d": math.sqrt(2.0),
        "bn": 0.75
    }, 18)


def make_mobilenetv2():
    return make_torchvision(torchvision.models.mobilenet_v2, {
        "Conv2d": math.sqrt(2.0),
        "bn": 1.0
    }, 2)


# ---------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------


def run_model(model, names, inputs):
    with torch.no_grad():
        out = model(*[torch.from_numpy(inputs[n]) for n in names])
    if not isinstance(out, (tuple, list)):
        out = (out,)
    return [o.numpy().astype(np.float32) for o in out]


def externalize(proto, entries, directory):
    """Moves the initializers named in entries to weights.bin (the bytes
    torch exported); returns the manifest."""
    tensors = []
    data = bytearray()
    found = set()
    for init in proto.graph.initializer:
        if init.name not in entries:
            if init.data_type == onnx.TensorProto.FLOAT and len(
                    init.raw_data) > 1024:
                raise ValueError("%s: a large float initializer that is not "
                                 "a parameter" % init.name)
            continue
        entry = entries[init.name]
        raw = init.raw_data
        if init.data_type != onnx.TensorProto.FLOAT or list(
                init.dims) != entry["shape"]:
            raise ValueError("%s: exported as type %d %s" %
                             (init.name, init.data_type, list(init.dims)))
        expected = weights.values(entry["k"], int(np.prod(entry["shape"])),
                                  entry["a"], entry["b"]).tobytes()
        if raw != expected:
            raise ValueError("%s: the exported bytes are not the formula's" %
                             init.name)
        offset = (len(data) + ALIGN - 1) // ALIGN * ALIGN
        data.extend(b"\0" * (offset - len(data)))
        data.extend(raw)
        entry = collections.OrderedDict(entry)
        entry["offset"], entry["length"] = offset, len(raw)
        tensors.append(entry)
        onnx.external_data_helper.set_external_data(init, "weights.bin",
                                                    offset, len(raw))
        init.data_location = onnx.TensorProto.EXTERNAL
        init.ClearField("raw_data")
        found.add(init.name)
    missing = set(entries) - found
    if missing:
        raise ValueError("not exported as initializers: %s" % sorted(missing))
    manifest = collections.OrderedDict(
        location="weights.bin", size=len(data),
        sha256=hashlib.sha256(bytes(data)).hexdigest(), tensors=tensors)
    with open(os.path.join(directory, "weights.bin"), "wb") as f:
        f.write(bytes(data))
    # One line per tensor: the file stays readable and diffs well.
    with open(os.path.join(directory, "weights.json"), "w") as f:
        head = json.dumps(
            collections.OrderedDict(
                (k, v) for k, v in manifest.items() if k != "tensors"))
        f.write(head[:-1] + ', "tensors": [\n')
        f.write(",\n".join(json.dumps(t) for t in tensors))
        f.write("\n]}\n")
    return manifest


def check_external(name, spec, directory, names):
    """Regenerates weights.bin with weights.py into a temporary folder,
    compares it with the exported one, checks the complete model and that
    a fresh model with its weights reproduces the expected outputs."""
    exported = os.path.join(directory, "weights.bin")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, WEIGHTS_PY, directory, tmp],
                       check=True)
        with open(exported, "rb") as a, open(os.path.join(tmp, "weights.bin"),
                                             "rb") as b:
            if a.read() != b.read():
                raise ValueError("%s: weights.py does not reproduce the "
                                 "exported weights.bin" % name)
        path = os.path.join(tmp, "model.onnx")
        onnx.checker.check_model(path)
        full = onnx.load(path)  # with the external data
        state = {
            init.name: torch.from_numpy(onnx.numpy_helper.to_array(init).copy())
            for init in full.graph.initializer
        }
        model = spec["rebuild"]()
        sd = model.state_dict()
        for k in spec["external"]:
            sd[k] = state[k]
        model.load_state_dict(sd)
        model.eval()
        for set_name, inputs in spec["sets"].items():
            got = run_model(model, names, inputs)
            want = np.load(
                os.path.join(directory, "expected_%s.npz" % set_name))
            for o, g in zip(spec["outputs"], got):
                if not np.array_equal(g, want[o]):
                    raise ValueError("%s/%s: a model with the regenerated "
                                     "weights gives other outputs" %
                                     (name, set_name))
    os.remove(exported)


def export(name, spec, out_dir):
    directory = os.path.join(out_dir, name)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "model.onnx")
    model, sets, outputs = spec["model"], spec["sets"], spec["outputs"]
    first = next(iter(sets.values()))
    names = list(first)
    external = spec.get("external")

    for set_name, inputs in sets.items():
        np.savez(os.path.join(directory, "inputs_%s.npz" % set_name),
                 **inputs)
        expected = run_model(model, names, inputs)
        np.savez(os.path.join(directory, "expected_%s.npz" % set_name),
                 **dict(zip(outputs, expected)))
    for file_name, arrays in spec.get("extra", {}).items():
        np.savez(os.path.join(directory, file_name), **arrays)

    args = tuple(torch.from_numpy(first[n]) for n in names)
    kwargs = {}
    if external:
        # PRESERVE keeps the model's (eval) mode but skips the eval-mode pass
        # that folds BatchNormalization into Conv (and would change the
        # initializers); the warning about constant folding in training mode
        # does not apply.
        warnings.filterwarnings("ignore", "It is recommended that constant")
        kwargs["training"] = torch.onnx.TrainingMode.PRESERVE
    exported = io.BytesIO()  # model.onnx is written once, graph only
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", torch.jit.TracerWarning)
        torch.onnx.export(model, args, exported, opset_version=OPSET,
                          do_constant_folding=True, input_names=names,
                          output_names=outputs,
                          dynamic_axes=spec["dynamic_axes"], **kwargs)
    tracer = [w for w in caught if issubclass(w.category,
                                              torch.jit.TracerWarning)]
    if tracer:
        raise ValueError("%s: the trace depends on the example's shape: %s" %
                         (name, tracer[0].message))

    proto = onnx.load_model_from_string(exported.getvalue())
    onnx.checker.check_model(proto)
    ops = collections.Counter(node.op_type for node in proto.graph.node)
    missing = [op for op in spec["required"] if op not in ops]
    if missing:
        raise ValueError("%s: no %s in the graph" % (name, ", ".join(missing)))
    if external:
        manifest = externalize(proto, external, directory)
        with open(path, "wb") as f:
            f.write(proto.SerializeToString())
        check_external(name, spec, directory, names)
    else:
        with open(path, "wb") as f:
            f.write(exported.getvalue())

    def signature(values):
        return ", ".join(
            "%s %s[%s]" %
            (v.name, onnx.TensorProto.DataType.Name(v.type.tensor_type.elem_type),
             ", ".join(d.dim_param or str(d.dim_value)
                       for d in v.type.tensor_type.shape.dim))
            for v in values)

    print("%s: %d bytes, %d parameters, opset %d" %
          (path, os.path.getsize(path),
           sum(p.numel() for p in model.parameters()), OPSET))
    if external:
        print("  weights.bin: %d bytes in %d tensors (not kept)" %
              (manifest["size"], len(manifest["tensors"])))
    print("  inputs: " + signature(proto.graph.input))
    print("  outputs: " + signature(proto.graph.output))
    print("  ops: " + ", ".join("%s x%d" % kv for kv in sorted(ops.items())))
    for set_name in sets:
        out = np.load(os.path.join(directory, "expected_%s.npz" % set_name))
        print("  expected_%s: " % set_name + ", ".join(
            "%s %s, std %.3g, max |x| %.3g" %
            (k, list(out[k].shape), out[k].std(), np.abs(out[k]).max())
            for k in out))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out-dir",
        default=os.path.normpath(os.path.join(HERE, "..", "test", "Models")))
    parser.add_argument("models", nargs="*",
                        help="gpt, vit, fpn, unet, resnet18, mobilenetv2 "
                        "(default: all)")
    args = parser.parse_args()
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    makers = collections.OrderedDict([("gpt", make_gpt), ("vit", make_vit),
                                      ("fpn", make_fpn), ("unet", make_unet),
                                      ("resnet18", make_resnet18),
                                      ("mobilenetv2", make_mobilenetv2)])
    for name in args.models or makers:
        export(name, makers[name](), args.out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
