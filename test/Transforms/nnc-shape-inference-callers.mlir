// RUN: nnc-opt %s --verify-diagnostics --nnc-shape-inference="function=callee input-shapes=0:8x4"

// Arguments of a function with callers cannot be specialized.
// expected-error @+1 {{cannot specialize the arguments of @callee: it has callers}}
func.func private @callee(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}
func.func @caller(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = call @callee(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
