#!/usr/bin/python3
"""Export small PyTorch models with PyTorch's training results under test/Training/.

Builds three small f32 models with fixed seeds and, for each, writes into
test/Training/<model>/:

  model.onnx           torch.onnx.export, opset 17, exported from eval() mode
                       (BatchNorm as BatchNormalization with its running
                       statistics as initializers), batch dimension dynamic
                       and named "batch". Every trainable parameter and every
                       BatchNorm running statistic is an initializer named
                       exactly like its PyTorch state_dict key; the script
                       checks names and values and fails otherwise.
  data.npz             40 samples: one array per model input, named like the
                       input, plus "labels" (int64 class indices).
  grads.npz            PyTorch's loss ("loss", f32 scalar) and the gradient of
                       every trainable parameter (keyed by its initializer
                       name) for the first batch, rows 0..7, in train() mode
                       (BatchNorm on batch statistics), mean cross-entropy.
  expected_params.npz  every parameter and BatchNorm running statistic after
                       10 torch.optim.Adam steps (lr 1e-2, default betas and
                       eps) in train() mode, without shuffling: step k trains
                       on rows [(k mod 5) * 8, (k mod 5) * 8 + 8).

The models:

  mlp                Linear 20->32, ReLU, Linear 32->5. Input x f32
                     [batch, 20], output logits [batch, 5].
  cnn_bn             Conv 1->8 3x3 pad 1 (no bias) + BatchNorm + ReLU,
                     MaxPool 2, Conv 8->16 3x3 pad 1 (no bias) + BatchNorm +
                     ReLU, global average pool, flatten, Linear 16->10. Input
                     image f32 [batch, 1, 8, 8], output logits [batch, 10].
  transformer_block  token embedding (vocabulary 16, d_model 16) + learned
                     positions (T = 8), one pre-LayerNorm block of causal
                     2-head self-attention written by hand and a GELU MLP
                     (16->64->16) with residuals, final LayerNorm, Linear head
                     to the vocabulary. Input tokens i64 [batch, 8], output
                     logits f32 [batch*8, 16]; labels are the next tokens,
                     [batch*8] int64.

The convolutions before BatchNorm and the attention's key projection have no
bias: their gradients are zero in exact arithmetic (BatchNorm subtracts the
mean; a key bias adds the same amount to every score of a softmax row), so in
f32 they are rounding noise that Adam's normalization would blow up into
lr-sized steps no two implementations reproduce. No dropout anywhere.

The files are committed: nothing in the build or the tests needs PyTorch. To
regenerate them (deterministic for a given PyTorch version; these came from
Debian's PyTorch 1.13 and ONNX 1.12):

  sudo apt-get install python3-torch python3-onnx
  /usr/bin/python3 utils/export_training_refs.py [--out-dir test/Training]
"""

import argparse
import collections
import copy
import math
import os
import sys
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from npz_io import save_npz

OPSET = 17
SAMPLES = 40
BATCH = 8
STEPS = 10
LR = 1e-2

# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------


class MLP(nn.Module):

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 32)
        self.fc2 = nn.Linear(32, 5)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class CNNBN(nn.Module):

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)  # 8x8 -> 4x4
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, 10)

    def forward(self, image):
        x = self.pool(F.relu(self.bn1(self.conv1(image))))
        x = F.relu(self.bn2(self.conv2(x)))
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(x)


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention from Linear, MatMul and Softmax.

    The causal mask is a [T, T] constant (0 on and below the diagonal, -1e4
    above) added to the scaled scores; it is a plain tensor attribute, not a
    parameter or buffer, so the export makes it an ONNX Constant node rather
    than an initializer (which an importer would take for a weight). The key
    projection has no bias (see the module docstring).
    """

    def __init__(self, d_model, heads, seq):
        super().__init__()
        self.heads, self.seq = heads, seq
        self.head_dim = d_model // heads
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model, bias=False)
        self.v = nn.Linear(d_model, d_model)
        self.o = nn.Linear(d_model, d_model)
        self.mask = torch.triu(torch.full((seq, seq), -1e4), diagonal=1)

    def split(self, x):
        # [b, t, d] -> [b, h, t, d/h]; -1 keeps the batch dimension dynamic.
        return x.reshape(-1, self.seq, self.heads,
                         self.head_dim).transpose(1, 2)

    def forward(self, x):
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(
            self.v(x))
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        probs = torch.softmax(scores + self.mask, dim=-1)
        y = torch.matmul(probs, v).transpose(1, 2)
        return self.o(y.reshape(-1, self.seq, self.heads * self.head_dim))


class Block(nn.Module):
    """Pre-LayerNorm transformer block: causal attention and a GELU MLP."""

    def __init__(self, d_model, heads, seq):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, heads, seq)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, 4 * d_model)
        self.fc2 = nn.Linear(4 * d_model, d_model)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class TinyGPT(nn.Module):
    """Token + learned position embeddings, blocks, final LayerNorm, head.

    The logits come out flattened to [batch * seq, vocab] so that a mean
    cross-entropy against [batch * seq] next-token labels is the loss.
    """

    def __init__(self, vocab, seq, d_model, heads, layers):
        super().__init__()
        self.seq, self.d_model = seq, d_model
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Parameter(torch.randn(seq, d_model) * 0.1)
        self.blocks = nn.ModuleList(
            [Block(d_model, heads, seq) for _ in range(layers)])
        self.ln = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, tokens):
        x = self.tok(tokens) + self.pos
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x).reshape(-1, self.d_model))


# ---------------------------------------------------------------------------
# Models with their data
# ---------------------------------------------------------------------------


def make_mlp():
    torch.manual_seed(10)
    model = MLP()
    # Labels from a random linear teacher, so training has something to learn.
    x = torch.randn(SAMPLES, 20)
    labels = torch.argmax(x @ torch.randn(20, 5), dim=1)
    return model, {"x": x}, labels


def make_cnn_bn():
    torch.manual_seed(11)
    model = CNNBN()
    with torch.no_grad():
        # Non-trivial BatchNorm affine parameters and running statistics, so
        # that a wrong running-statistics update or a missing scale shows.
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
    image = torch.randn(SAMPLES, 1, 8, 8) * 1.5 + 0.3
    labels = torch.randint(0, 10, (SAMPLES,))
    return model, {"image": image}, labels


def make_transformer_block():
    torch.manual_seed(12)
    vocab, seq = 16, 8
    model = TinyGPT(vocab=vocab, seq=seq, d_model=16, heads=2, layers=1)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    # Sequences s_i = (start + i * stride) mod 16 with a random start and
    # stride; the labels are the next element of each sequence, flattened.
    start = torch.randint(0, vocab, (SAMPLES, 1))
    stride = torch.randint(1, 4, (SAMPLES, 1))
    full = (start + stride * torch.arange(seq + 1)) % vocab
    tokens = full[:, :seq].contiguous()
    labels = full[:, 1:].reshape(-1).contiguous()
    return model, {"tokens": tokens}, labels


# ---------------------------------------------------------------------------
# Export and checks
# ---------------------------------------------------------------------------


def state_names(model):
    """The state_dict keys an ONNX file must hold as initializers: every
    parameter and every BatchNorm running mean/variance (num_batches_tracked
    is not used by the graph)."""
    names = [n for n, _ in model.named_parameters()]
    names += [
        n for n, _ in model.named_buffers()
        if n.endswith(".running_mean") or n.endswith(".running_var")
    ]
    return names


def state_arrays(model):
    state = model.state_dict()
    return {n: state[n].detach().numpy().copy() for n in state_names(model)}


def export_onnx(model, inputs, path, constant_folding, flat_output):
    names = list(inputs)
    args = tuple(inputs[n] for n in names)
    dynamic_axes = {n: {0: "batch"} for n in names}
    dynamic_axes["logits"] = {0: "batch_x_seq" if flat_output else "batch"}
    model.eval()
    # An export of a model whose top module is in eval mode merges
    # initializers with equal values: a fresh BatchNorm's running_var (ones)
    # and weight (ones) become one initializer and an Identity node, and the
    # running statistic loses its name. Only the top module's flag decides
    # (and the top modules here read no flag), so it alone says "training"
    # while every layer, BatchNorm included, stays in eval mode.
    model.training = True
    try:
        with torch.no_grad():
            # PRESERVE exports each layer in its own (eval) mode and skips the
            # eval-mode peephole pass that would fold BatchNormalization into
            # Conv.
            warnings.filterwarnings("ignore", "It is recommended that constant")
            torch.onnx.export(model, args, path, opset_version=OPSET,
                              do_constant_folding=constant_folding,
                              input_names=names, output_names=["logits"],
                              dynamic_axes=dynamic_axes,
                              training=torch.onnx.TrainingMode.PRESERVE)
    finally:
        model.training = False
    # ONNX is imported where it is used: utils/gpu-check/torch_steps.py
    # takes the models from here on machines that have PyTorch alone.
    import onnx
    proto = onnx.load(path)
    onnx.checker.check_model(proto)
    return proto


def check_initializers(proto, model, path):
    """Every parameter and running statistic is an initializer named by its
    state_dict key with the same value, and there are no other initializers."""
    import onnx.numpy_helper
    inits = {
        t.name: onnx.numpy_helper.to_array(t) for t in proto.graph.initializer
    }
    want = state_arrays(model)
    problems = []
    for n in sorted(set(want) - set(inits)):
        problems.append("state_dict key %s is not an initializer" % n)
    for n in sorted(set(inits) - set(want)):
        problems.append("initializer %s is no state_dict key" % n)
    for n in sorted(set(want) & set(inits)):
        if inits[n].dtype != np.float32 or not np.array_equal(inits[n], want[n]):
            problems.append("initializer %s differs from the state_dict" % n)
    if problems:
        raise SystemExit("%s: parameter names do not map:\n  %s" %
                         (path, "\n  ".join(problems)))


def train_mode_loss(model, inputs, labels):
    logits = model(*inputs.values())
    return F.cross_entropy(logits, labels)


def batch(inputs, labels, step):
    """Rows [lo, lo + BATCH) of every input; the labels may hold several rows
    per sample (the transformer's [samples * seq] next tokens), and a batch
    takes the same fraction of them."""
    lo = (step % (SAMPLES // BATCH)) * BATCH
    per = labels.shape[0] // SAMPLES
    return ({n: t[lo:lo + BATCH] for n, t in inputs.items()},
            labels[lo * per:(lo + BATCH) * per])


def first_batch_grads(model, inputs, labels):
    model = copy.deepcopy(model)
    model.train()
    model.zero_grad()
    xb, yb = batch(inputs, labels, 0)
    loss = train_mode_loss(model, xb, yb)
    loss.backward()
    out = {"loss": np.array(loss.item(), dtype=np.float32)}
    for n, p in model.named_parameters():
        out[n] = p.grad.detach().numpy().copy()
    return out


def adam_run(model, inputs, labels):
    model = copy.deepcopy(model)
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    losses = []
    for step in range(STEPS):
        xb, yb = batch(inputs, labels, step)
        opt.zero_grad()
        loss = train_mode_loss(model, xb, yb)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return state_arrays(model), losses


def export(name, model, inputs, labels, constant_folding, out_dir,
           flat_output=False):
    directory = os.path.join(out_dir, name)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "model.onnx")
    proto = export_onnx(model, inputs, path, constant_folding, flat_output)
    check_initializers(proto, model, path)

    data = {n: t.numpy() for n, t in inputs.items()}
    # One row of labels per sample ([N, T] for the transformer, whose logits
    # are [N * T, vocab]): nnc-run's data loader batches by sample and the
    # trainer flattens the labels to the output's layout.
    data["labels"] = labels.numpy().astype(np.int64).reshape(SAMPLES, -1)
    if data["labels"].shape[1] == 1:
        data["labels"] = data["labels"].reshape(SAMPLES)
    save_npz(os.path.join(directory, "data.npz"), data)
    grads = first_batch_grads(model, inputs, labels)
    save_npz(os.path.join(directory, "grads.npz"), grads)
    params, losses = adam_run(model, inputs, labels)
    save_npz(os.path.join(directory, "expected_params.npz"), params)

    ops = collections.Counter(node.op_type for node in proto.graph.node)
    print("%s: %d bytes, %d parameters, opset %d, constant folding %s" %
          (path, os.path.getsize(path),
           sum(p.numel() for p in model.parameters()), OPSET,
           "on" if constant_folding else "off"))
    print("  ops: " + ", ".join("%s x%d" % kv for kv in sorted(ops.items())))
    print("  initializers: " + ", ".join(state_names(model)))
    print("  first-batch loss %.6f; Adam losses %s" %
          (grads["loss"], " ".join("%.4f" % l for l in losses)))


# Constant folding off where it would rename a parameter: Linear on a rank-3
# input exports as MatMul with a Transpose of the weight, which folding turns
# into a new initializer ("onnx::MatMul_<n>") holding the transposed weight.
MODELS = [
    ("mlp", make_mlp, True, False),
    ("cnn_bn", make_cnn_bn, True, False),
    ("transformer_block", make_transformer_block, False, True),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out-dir",
        default=os.path.normpath(
            os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "test", "Training")))
    args = parser.parse_args()
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    for name, make, folding, flat in MODELS:
        model, inputs, labels = make()
        export(name, model, inputs, labels, folding, args.out_dir, flat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
