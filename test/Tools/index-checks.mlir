// Indices and labels are checked at run time inside the kernels that use
// them: in range (negative indices counting from the end) the results are
// numpy's; out of range, slightly or far, the run fails after the kernel
// naming the op, the index and the range, and exits non-zero.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/t53.npy f4 5x3 0:15
// RUN: %npy write %t/t23.npy f4 2x3 0:6
// RUN: %npy write %t/t43.npy f4 4x3 0:12

// gather.
// RUN: %npy write %t/g-ok.npy i8 4 0,4,-1,-5
// RUN: %npy write %t/g-over.npy i8 4 0,5,1,2
// RUN: %npy write %t/g-under.npy i8 4 0,1,-6,2
// RUN: %npy write %t/g-far.npy i8 4 0,1,2,1000000000000
// RUN: nnc-run %S/Inputs/checks/gather.mlir --input data=%t/t53.npy \
// RUN:   --input idx=%t/g-ok.npy --cache-dir= --output %t/g.npz
// RUN: %npy dump %t/g.npz | FileCheck %s --check-prefix=GATHER
// GATHER: output_0: f4 [4, 3] = [0, 1, 2, 12, 13, 14, 12, 13, 14, 0, 1, 2]
// RUN: not nnc-run %S/Inputs/checks/gather.mlir --input data=%t/t53.npy \
// RUN:   --input idx=%t/g-over.npy --cache-dir= 2>&1 | FileCheck %s --check-prefix=GATHER-OVER
// GATHER-OVER: gather '/embed/Gather' index into axis 0 of f32[5x3]: 5 is out of range [-5, 5) (found by step {{[0-9]+}}, '{{.*}}/embed/Gather{{.*}}')
// RUN: not nnc-run %S/Inputs/checks/gather.mlir --input data=%t/t53.npy \
// RUN:   --input idx=%t/g-under.npy --cache-dir= 2>&1 | FileCheck %s --check-prefix=GATHER-UNDER
// GATHER-UNDER: gather '/embed/Gather' index into axis 0 of f32[5x3]: -6 is out of range [-5, 5)
// RUN: not nnc-run %S/Inputs/checks/gather.mlir --input data=%t/t53.npy \
// RUN:   --input idx=%t/g-far.npy --cache-dir= 2>&1 | FileCheck %s --check-prefix=GATHER-FAR
// GATHER-FAR: gather '/embed/Gather' index into axis 0 of f32[5x3]: 1000000000000 is out of range [-5, 5)

// gather_elements, i32 indices.
// RUN: %npy write %t/ge-ok.npy i4 2x2 0,2,-1,1
// RUN: %npy write %t/ge-bad.npy i4 2x2 0,2,3,1
// RUN: nnc-run %S/Inputs/checks/gather_elements.mlir --input data=%t/t23.npy \
// RUN:   --input idx=%t/ge-ok.npy --cache-dir= | FileCheck %s --check-prefix=GE
// GE: output_0: f32 [2, 2] = [0, 2, 5, 4]
// RUN: not nnc-run %S/Inputs/checks/gather_elements.mlir --input data=%t/t23.npy \
// RUN:   --input idx=%t/ge-bad.npy --cache-dir= 2>&1 | FileCheck %s --check-prefix=GE-BAD
// GE-BAD: gather_elements 'ge' index into axis 1 of f32[2x3]: 3 is out of range [-3, 3)

// scatter_elements: an index out of range writes nothing (the scatter is
// a loop writing into the output, so a bad index must not reach memory).
// RUN: %npy write %t/se-ok.npy i8 2x2 0,0,2,-3
// RUN: %npy write %t/se-bad.npy i8 2x2 0,0,0,-4
// RUN: %npy write %t/se-far.npy i8 2x2 0,-9000000000000000000,0,0
// RUN: nnc-run %S/Inputs/checks/scatter_elements.mlir --input data=%t/t23.npy \
// RUN:   --input idx=%t/se-ok.npy --cache-dir= | FileCheck %s --check-prefix=SE
// SE: output_0: f32 [2, 3] = [2, 1, 2, 4, 4, 6]
// RUN: not nnc-run %S/Inputs/checks/scatter_elements.mlir --input data=%t/t23.npy \
// RUN:   --input idx=%t/se-bad.npy --cache-dir= 2>&1 | FileCheck %s --check-prefix=SE-BAD
// SE-BAD: scatter_elements 'se' index into axis 1 of f32[2x3]: -4 is out of range [-3, 3)
// RUN: not nnc-run %S/Inputs/checks/scatter_elements.mlir --input data=%t/t23.npy \
// RUN:   --input idx=%t/se-far.npy --cache-dir= 2>&1 | FileCheck %s --check-prefix=SE-FAR
// SE-FAR: scatter_elements 'se' index into axis 1 of f32[2x3]: -9000000000000000000 is out of range [-3, 3)

// scatter_nd: each coordinate of an index tuple against its own axis.
// RUN: %npy write %t/snd-ok.npy i8 2x2 1,2,-1,0
// RUN: %npy write %t/snd-row.npy i8 2x2 1,2,4,0
// RUN: %npy write %t/snd-col.npy i8 2x2 1,3,0,0
// RUN: nnc-run %S/Inputs/checks/scatter_nd.mlir --input data=%t/t43.npy \
// RUN:   --input idx=%t/snd-ok.npy --cache-dir= --output %t/snd.npz
// RUN: %npy dump %t/snd.npz | FileCheck %s --check-prefix=SND
// SND: output_0: f4 [4, 3] = [0, 1, 2, 3, 4, 7, 6, 7, 8, 7, 10, 11]
// RUN: not nnc-run %S/Inputs/checks/scatter_nd.mlir --input data=%t/t43.npy \
// RUN:   --input idx=%t/snd-row.npy --cache-dir= 2>&1 | FileCheck %s --check-prefix=SND-ROW
// SND-ROW: scatter_nd 'snd' index into axis 0 of f32[4x3]: 4 is out of range [-4, 4)
// RUN: not nnc-run %S/Inputs/checks/scatter_nd.mlir --input data=%t/t43.npy \
// RUN:   --input idx=%t/snd-col.npy --cache-dir= 2>&1 | FileCheck %s --check-prefix=SND-COL
// SND-COL: scatter_nd 'snd' index into axis 1 of f32[4x3]: 3 is out of range [-3, 3)

// Class losses: labels in [0, C), except the ignored one.
// RUN: %npy write %t/z43.npy f4 4x3 0,0,0,0,0,0,0,0,0,0,0,0
// RUN: %npy write %t/ce-ok.npy i8 4 0,1,2,-100
// RUN: %npy write %t/ce-over.npy i8 4 0,3,1,2
// RUN: %npy write %t/ce-neg.npy i8 4 0,1,-1,2
// RUN: nnc-run %S/Inputs/checks/cross_entropy.mlir --input logits=%t/z43.npy \
// RUN:   --input labels=%t/ce-ok.npy --cache-dir= | FileCheck %s --check-prefix=CE
// CE: output_0: f32 [] = [1.0986
// RUN: not nnc-run %S/Inputs/checks/cross_entropy.mlir --input logits=%t/z43.npy \
// RUN:   --input labels=%t/ce-over.npy --cache-dir= 2>&1 | FileCheck %s --check-prefix=CE-OVER
// CE-OVER: cross_entropy 'loss' label: 3 is out of range [0, 3)
// RUN: not nnc-run %S/Inputs/checks/cross_entropy.mlir --input logits=%t/z43.npy \
// RUN:   --input labels=%t/ce-neg.npy --cache-dir= 2>&1 | FileCheck %s --check-prefix=CE-NEG
// CE-NEG: cross_entropy 'loss' label: -1 is out of range [0, 3)
// RUN: %npy write %t/nll-ok.npy i4 4 0,1,2,1
// RUN: %npy write %t/nll-bad.npy i4 4 0,7,2,1
// RUN: nnc-run %S/Inputs/checks/nll_loss.mlir --input logp=%t/t43.npy \
// RUN:   --input labels=%t/nll-ok.npy --cache-dir= | FileCheck %s --check-prefix=NLL
// NLL: output_0: f32 [] = [-52]
// RUN: not nnc-run %S/Inputs/checks/nll_loss.mlir --input logp=%t/t43.npy \
// RUN:   --input labels=%t/nll-bad.npy --cache-dir= 2>&1 | FileCheck %s --check-prefix=NLL-BAD
// NLL-BAD: nll_loss 'nll' label: 7 is out of range [0, 3)

// The same without fusion (one kernel per op) and from a compiled
// executable run by the runtime alone.
// RUN: not nnc-run %S/Inputs/checks/gather.mlir --input data=%t/t53.npy \
// RUN:   --input idx=%t/g-over.npy --cache-dir= --no-fuse 2>&1 | FileCheck %s --check-prefix=GATHER-OVER
// RUN: nnc-run %S/Inputs/checks/scatter_nd.mlir --input data=%t/t43.npy \
// RUN:   --input idx=%t/snd-ok.npy --cache-dir= --save-compiled %t/snd.nncx --output %t/snd2.npz
// RUN: %npy dump %t/snd2.npz | FileCheck %s --check-prefix=SND
// RUN: not nnc-run %t/snd.nncx --input data=%t/t43.npy --input idx=%t/snd-col.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SND-COL
