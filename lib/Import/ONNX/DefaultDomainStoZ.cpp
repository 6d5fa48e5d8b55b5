//===- DefaultDomainStoZ.cpp - ONNX ops S to Z -----------------------------===//
//
// Converters of the default-domain ONNX ops whose names start with S
// to Z, keyed by the opset they apply from.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

using namespace mlir;

namespace nnc::onnx_import {

void populateDefaultDomainStoZ(OpRegistry &registry) {
}

} // namespace nnc::onnx_import
