// nnc-run and oneDNN: the digits CNN's convolutions run in oneDNN by default
// and in generated code with --no-library-kernels (a different cache entry,
// the same logits); a saved executable that calls oneDNN fails to load,
// naming the glue, where it cannot be found; a compile without it falls
// back to generated code.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/image.npy f4 4x1x8x8 0:256

// RUN: nnc-run %nnc_src_root/examples/digits/cnn.onnx --input image=%t/image.npy \
// RUN:   --cache-dir %t/cache --report --save-compiled %t/cnn.nncx \
// RUN:   | FileCheck %s --check-prefixes=LOGITS,LIB,COLD
// RUN: nnc-run %nnc_src_root/examples/digits/cnn.onnx --input image=%t/image.npy \
// RUN:   --cache-dir %t/cache --report --no-library-kernels \
// RUN:   | FileCheck %s --check-prefixes=LOGITS,GEN,COLD
// RUN: nnc-run %nnc_src_root/examples/digits/cnn.onnx --input image=%t/image.npy \
// RUN:   --cache-dir %t/cache --report | FileCheck %s --check-prefixes=LOGITS,LIB,WARM
// LOGITS: logits: f32 [4, 10] = [1.88467, 3.74823, 1.54678, -1.05356,
// The two convolutions are library calls beside the dense layer's GEMM.
// LIB: library calls: 3
// GEN: library calls: 5
// COLD: from cache: no
// WARM: from cache: yes

// RUN: env NNC_DNNL_GLUE=%t/missing/libnnc_dnnl.so not nnc-run %t/cnn.nncx \
// RUN:   --input image=%t/image.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: nnc-run: error: nnc_executable_load_file: {{.*}}cnn.nncx: cannot load nnc's oneDNN glue, which CPU kernels call for convolutions (it needs libdnnl.so.2: install libdnnl2; or set NNC_DNNL_GLUE); tried:
// MISSING-NEXT: missing/libnnc_dnnl.so: {{.*}}No such file or directory

// RUN: env NNC_DNNL_GLUE=%t/missing/libnnc_dnnl.so nnc-run \
// RUN:   %nnc_src_root/examples/digits/cnn.onnx --input image=%t/image.npy \
// RUN:   --cache-dir= --report | FileCheck %s --check-prefixes=LOGITS,GEN
