//===- DefaultDomainAtoF.cpp - ONNX ops A to F -----------------------------===//
//
// Converters of the default-domain ONNX ops whose names start with A
// to F, keyed by the opset they apply from.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

using namespace mlir;

namespace nnc::onnx_import {

void populateDefaultDomainAtoF(OpRegistry &registry) {
}

} // namespace nnc::onnx_import
