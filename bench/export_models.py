#!/usr/bin/python3
#===- bench/export_models.py - export the benchmark models from PyTorch ---===#
#
# Builds the benchmark models of bench/run.py with random weights (fixed
# seeds) and exports each to ONNX, with one random input batch and labels.
#
#===----------------------------------------------------------------------===#
"""Export the benchmark models to ONNX, with a random batch for each.

Usage: /usr/bin/python3 bench/export_models.py [OUT_DIR [MODELS]]
(OUT_DIR by default build/bench/models; MODELS a comma-separated subset of
the names below, by default all: a subset draws the shared generator's
batches in another order, so export all for the report). Writes, per model,
OUT_DIR/<model>.onnx and, per benchmark case, OUT_DIR/<case>.npz holding the
input (named like the model input) and "labels" (int64 class indices):

  mlp_digits   Linear 64->256->256->10, ReLU; x f32 [64, 64]
  mlp_wide     Linear 1024->4096->4096->1000, GELU; x f32 [128, 1024]
  gpt_tiny     4 pre-LayerNorm transformer blocks, d_model 256, 4 heads,
               causal attention, T 128, vocabulary 256, learned positions,
               GELU MLP 256->1024->256; tokens i64 [8, 128], logits
               [batch*128, 256] (TinyGPT of utils/export_training_refs.py,
               as examples/chargpt), labels [8*128]
  cnn_small    3 x (conv 3x3 + BatchNorm + ReLU), 32/64/128 channels, 2x2
               max-pooling after the first two, global average pool, Linear
               128->10; image f32 [32, 3, 32, 32]
  resnet18     ResNet-18 (written out below: 7x7 stem, max-pool, 4 stages of
               2 basic blocks, 64/128/256/512 channels, 1000 classes); image
               f32 [batch, 3, 224, 224]; cases resnet18_b1 and resnet18_b8
  mobilenet_v2 torchvision's MobileNetV2 (depthwise-separable inverted
               residuals, ReLU6, 1000 classes; its classifier's dropout is
               taken out: a training step has no random ops); image f32
               [8, 3, 224, 224]; case mobilenet_v2_b8
  gpt_12       gpt_tiny with 12 blocks (d_model, heads, T, vocabulary and
               batch as gpt_tiny; for run.py's rematerialization section);
               its batch comes from its own generator (seed 12), so that the
               other models' batches are those of the exports before it

Every export goes through utils/export_training_refs.py's export_onnx and
check_initializers: eval() mode, opset 17, without constant folding, batch
dimension dynamic; every parameter and BatchNorm running statistic is an
initializer named by its state_dict key with its value (checked). The output is `logits`.
The .onnx files are large (mlp_wide ~100 MB) and not committed.
"""

import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

# The GPT and the exporter are those of the training references.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "utils"))
from export_training_refs import TinyGPT, check_initializers, export_onnx  # noqa: E402


# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------


class MLP(nn.Module):

    def __init__(self, sizes, act):
        super().__init__()
        self.layers = nn.ModuleList(
            nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.act = act

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = self.act(x)
        return x


def conv_bn(cin, cout, k, stride=1):
    return nn.Sequential(
        nn.Conv2d(cin, cout, k, stride, k // 2, bias=False),
        nn.BatchNorm2d(cout))


class CNNSmall(nn.Module):

    def __init__(self):
        super().__init__()
        self.c1, self.c2, self.c3 = (conv_bn(3, 32, 3), conv_bn(32, 64, 3),
                                     conv_bn(64, 128, 3))
        self.fc = nn.Linear(128, 10)

    def forward(self, image):
        x = F.max_pool2d(F.relu(self.c1(image)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        x = F.relu(self.c3(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class BasicBlock(nn.Module):

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.a = conv_bn(cin, cout, 3, stride)
        self.b = conv_bn(cout, cout, 3)
        self.down = (conv_bn(cin, cout, 1, stride)
                     if stride != 1 or cin != cout else None)

    def forward(self, x):
        y = self.b(F.relu(self.a(x)))
        return F.relu(y + (self.down(x) if self.down is not None else x))


class ResNet18(nn.Module):

    def __init__(self, classes=1000):
        super().__init__()
        self.stem = conv_bn(3, 64, 7, 2)
        blocks, cin = [], 64
        for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
            blocks += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
            cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(512, classes)

    def forward(self, image):
        x = F.max_pool2d(F.relu(self.stem(image)), 3, 2, 1)
        x = self.blocks(x)
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def mobilenet_v2():
    import torchvision
    model = torchvision.models.mobilenet_v2(num_classes=1000)
    # The classifier is Dropout(0.2) + Linear: keep the Linear alone, so
    # that PyTorch's and nnc's training steps compute the same function.
    model.classifier = nn.Sequential(model.classifier[1])
    return randomize_batchnorm(model)


def randomize_batchnorm(model):
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 2.0)
    return model


def module_with_weights(name, proto):
    """The module of model `name` (a key of cases()) with the weights of its
    ONNX file (`proto`, an onnx.ModelProto): every state_dict entry but
    BatchNorm's step counters must be an initializer of that name."""
    import onnx.numpy_helper
    model = cases()[name][0]()
    state = {t.name: torch.from_numpy(onnx.numpy_helper.to_array(t).copy())
             for t in proto.graph.initializer}
    own = model.state_dict()
    missing = [k for k in own if k not in state and
               not k.endswith("num_batches_tracked")]
    if missing:
        raise RuntimeError("weights missing from the ONNX file: %s" % missing)
    model.load_state_dict({k: state.get(k, v) for k, v in own.items()})
    return model


# name: (model factory, input name, {case: (input batch, labels)} factory)
def cases():
    g = torch.Generator().manual_seed(0)

    def floats(*shape):
        return torch.randn(*shape, generator=g)

    def labels(n, classes):
        return torch.randint(0, classes, (n,), generator=g)

    return {
        "mlp_digits": (lambda: MLP([64, 256, 256, 10], F.relu), "x",
                       lambda: {"mlp_digits": (floats(64, 64), labels(64, 10))}),
        "mlp_wide": (lambda: MLP([1024, 4096, 4096, 1000], F.gelu), "x",
                     lambda: {"mlp_wide": (floats(128, 1024),
                                           labels(128, 1000))}),
        "gpt_tiny": (lambda: TinyGPT(vocab=256, seq=128, d_model=256, heads=4,
                                     layers=4), "tokens",
                     lambda: {"gpt_tiny": (torch.randint(
                         0, 256, (8, 128), generator=g), labels(8 * 128, 256))}),
        "cnn_small": (lambda: randomize_batchnorm(CNNSmall()), "image",
                      lambda: {"cnn_small": (floats(32, 3, 32, 32),
                                             labels(32, 10))}),
        "resnet18": (lambda: randomize_batchnorm(ResNet18()), "image",
                     lambda: {
                         "resnet18_b1": (floats(1, 3, 224, 224),
                                         labels(1, 1000)),
                         "resnet18_b8": (floats(8, 3, 224, 224),
                                         labels(8, 1000)),
                     }),
        "mobilenet_v2": (mobilenet_v2, "image",
                         lambda: {"mobilenet_v2_b8": (floats(8, 3, 224, 224),
                                                      labels(8, 1000))}),
        # Last, and with its own generator: the models above keep their
        # seeds (100 + position) and their batches' random draws.
        "gpt_12": (lambda: TinyGPT(vocab=256, seq=128, d_model=256, heads=4,
                                   layers=12), "tokens", gpt_12_batch),
    }


def gpt_12_batch():
    """gpt_12's batch (gpt_tiny's shapes) from a generator of its own."""
    g = torch.Generator().manual_seed(12)
    return {"gpt_12": (torch.randint(0, 256, (8, 128), generator=g),
                       torch.randint(0, 256, (8 * 128,), generator=g))}


# ---------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------


def export(model, input_name, example, path, flat_output):
    """Exports with the training references' exporter (every parameter and
    running statistic an initializer named by its state_dict key, checked);
    returns the parameter count."""
    proto = export_onnx(model, {input_name: example}, path,
                        constant_folding=False, flat_output=flat_output)
    check_initializers(proto, model, path)
    return sum(p.numel() for p in model.parameters())


def main(argv):
    out_dir = argv[1] if len(argv) > 1 else os.path.join("build", "bench",
                                                          "models")
    only = set(argv[2].split(",")) if len(argv) > 2 else None
    os.makedirs(out_dir, exist_ok=True)
    for seed, (name, (make, input_name, data)) in enumerate(cases().items()):
        if only and name not in only:
            continue
        torch.manual_seed(100 + seed)
        model = make()
        batches = data()
        first = next(iter(batches.values()))[0]
        path = os.path.join(out_dir, name + ".onnx")
        params = export(model, input_name, first, path,
                        flat_output=name.startswith("gpt_"))
        for case, (x, y) in batches.items():
            np.savez(os.path.join(out_dir, case + ".npz"),
                     **{input_name: x.numpy(), "labels": y.numpy()})
        print("%s: %d parameters, %d bytes" % (name, params,
                                               os.path.getsize(path)))


if __name__ == "__main__":
    main(sys.argv)
