#!/usr/bin/python3
"""Export the small PyTorch models under test/Models/ to ONNX with reference data.

Builds two small models with fixed seeds, exports each with torch.onnx.export
(opset 17, constant folding, eval mode, batch dimension dynamic and named
"batch") and saves, next to each model.onnx, one reference input set as
<input name>.npy and PyTorch's outputs as expected_<output name>.npy:

  test/Models/resnet/       a ResNet-style CNN: conv 3x3 + BatchNorm + ReLU
                            stem, MaxPool, three basic residual blocks (the
                            second strided, with a 1x1 conv + BatchNorm
                            shortcut), global average pool, flatten, Linear.
                            Input image f32 [batch, 3, 32, 32], output logits
                            f32 [batch, 10].
  test/Models/transformer/  a transformer encoder written by hand: token
                            embedding + learned positional embedding, two
                            pre-LayerNorm layers of 4-head self-attention
                            (d_model 32) with a padding mask, GELU MLP,
                            residuals, final LayerNorm and a Linear classifier
                            on the first token. Inputs input_ids i64 [batch, 16]
                            and attention_mask i64 [batch, 16] (1 = token,
                            0 = padding), output logits f32 [batch, 10].

The BatchNorm layers are exported as BatchNormalization ops (not folded into the
convolutions) with running statistics made non-trivial by a few training-mode
forward passes on random data before the switch to eval mode.

The files are committed: nothing in the build or the tests needs PyTorch. To
regenerate them (the output is deterministic for a given PyTorch version), install
Debian's PyTorch and ONNX and run the script with Debian's Python:

  sudo apt-get install python3-torch python3-onnx
  /usr/bin/python3 utils/export_torch_models.py [--out-dir test/Models]

The script checks each exported file with onnx.checker and prints the ops and the
size of each model.
"""

import argparse
import collections
import math
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F

OPSET = 17
BATCH = 2


# ---------------------------------------------------------------------------
# ResNet-style CNN
# ---------------------------------------------------------------------------


class BasicBlock(nn.Module):
    """Two 3x3 convs with BatchNorm; a 1x1 conv shortcut when the shape changes."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = None
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, 0, bias=False),
                nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        s = x if self.shortcut is None else self.shortcut(x)
        return F.relu(y + s)


class SmallResNet(nn.Module):

    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16),
            nn.ReLU())
        self.pool = nn.MaxPool2d(3, 2, 1)  # 32x32 -> 16x16
        self.layer1 = BasicBlock(16, 16, 1)
        self.layer2 = BasicBlock(16, 32, 2)  # 16x16 -> 8x8, 1x1 shortcut
        self.layer3 = BasicBlock(32, 32, 1)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, image):
        x = self.pool(self.stem(image))
        x = self.layer3(self.layer2(self.layer1(x)))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


def make_resnet():
    torch.manual_seed(0)
    model = SmallResNet()
    # Give every BatchNorm non-trivial affine parameters and running statistics:
    # random gamma/beta, then a few training-mode passes over shifted, scaled
    # random data update running_mean/var away from 0/1.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
                m.momentum = 0.5
        model.train()
        for _ in range(4):
            model(torch.randn(8, 3, 32, 32) * 1.5 + 0.3)
    model.eval()
    image = torch.randn(BATCH, 3, 32, 32)
    return model, {"image": image}, ["logits"]


# ---------------------------------------------------------------------------
# Transformer encoder
# ---------------------------------------------------------------------------


class SelfAttention(nn.Module):
    """Multi-head self-attention from Linear, MatMul and Softmax."""

    def __init__(self, d_model, heads, seq):
        super().__init__()
        self.heads, self.seq = heads, seq
        self.head_dim = d_model // heads
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model)
        self.v = nn.Linear(d_model, d_model)
        self.out = nn.Linear(d_model, d_model)

    def split(self, x):
        # [b, t, d] -> [b, h, t, d/h]; -1 keeps the batch dimension dynamic.
        return x.reshape(-1, self.seq, self.heads,
                         self.head_dim).transpose(1, 2)

    def forward(self, x, mask_bias):
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(
            self.v(x))
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        probs = torch.softmax(scores + mask_bias, dim=-1)
        y = torch.matmul(probs, v).transpose(1, 2)
        return self.out(y.reshape(-1, self.seq, self.heads * self.head_dim))


class EncoderLayer(nn.Module):

    def __init__(self, d_model, heads, ffn, seq):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = SelfAttention(d_model, heads, seq)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, ffn)
        self.fc2 = nn.Linear(ffn, d_model)

    def forward(self, x, mask_bias):
        x = x + self.attn(self.ln1(x), mask_bias)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class SmallTransformer(nn.Module):

    def __init__(self, vocab=64, seq=16, d_model=32, heads=4, ffn=64,
                 layers=2, num_classes=10):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Parameter(torch.randn(seq, d_model) * 0.1)
        self.layers = nn.ModuleList(
            [EncoderLayer(d_model, heads, ffn, seq) for _ in range(layers)])
        self.ln = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, input_ids, attention_mask):
        x = self.tok(input_ids) + self.pos
        # Padding positions get a large negative score before the softmax
        # (finite, so a row never becomes NaN); [b, t] -> [b, 1, 1, t].
        mask_bias = (1.0 - attention_mask.to(torch.float32)) * -1e4
        mask_bias = mask_bias.unsqueeze(1).unsqueeze(2)
        for layer in self.layers:
            x = layer(x, mask_bias)
        return self.head(self.ln(x)[:, 0])


def make_transformer():
    torch.manual_seed(1)
    model = SmallTransformer()
    with torch.no_grad():
        # Non-trivial LayerNorm affine parameters.
        for m in model.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    model.eval()
    input_ids = torch.randint(0, 64, (BATCH, 16), dtype=torch.int64)
    attention_mask = torch.ones(BATCH, 16, dtype=torch.int64)
    attention_mask[1, 11:] = 0  # the second sequence has 5 padding tokens
    return model, {
        "input_ids": input_ids,
        "attention_mask": attention_mask
    }, ["logits"]


# ---------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------


def export(name, model, inputs, output_names, out_dir):
    directory = os.path.join(out_dir, name)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "model.onnx")
    names = list(inputs)
    args = tuple(inputs[n] for n in names)
    dynamic_axes = {n: {0: "batch"} for n in names + output_names}
    with torch.no_grad():
        expected = model(*args)
        # PRESERVE keeps the model's (eval) mode but skips the eval-mode
        # peephole pass that would fold BatchNormalization into Conv; the
        # warning about constant folding in training mode does not apply.
        warnings.filterwarnings("ignore", "It is recommended that constant")
        torch.onnx.export(model, args, path, opset_version=OPSET,
                          do_constant_folding=True, input_names=names,
                          output_names=output_names, dynamic_axes=dynamic_axes,
                          training=torch.onnx.TrainingMode.PRESERVE)
    if not isinstance(expected, (tuple, list)):
        expected = (expected,)
    for n, t in inputs.items():
        np.save(os.path.join(directory, n + ".npy"), t.numpy())
    for n, t in zip(output_names, expected):
        np.save(os.path.join(directory, "expected_" + n + ".npy"),
                t.numpy().astype(np.float32))

    proto = onnx.load(path)
    onnx.checker.check_model(proto)
    ops = collections.Counter(node.op_type for node in proto.graph.node)
    print("%s: %d bytes, %d parameters, opset %d" %
          (path, os.path.getsize(path),
           sum(p.numel() for p in model.parameters()), OPSET))
    print("  ops: " + ", ".join("%s x%d" % kv for kv in sorted(ops.items())))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out-dir",
        default=os.path.normpath(
            os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "test", "Models")))
    args = parser.parse_args()
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    for name, make in [("resnet", make_resnet),
                       ("transformer", make_transformer)]:
        model, inputs, outputs = make()
        export(name, model, inputs, outputs, args.out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
