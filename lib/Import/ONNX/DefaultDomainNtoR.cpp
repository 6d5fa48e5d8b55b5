//===- DefaultDomainNtoR.cpp - ONNX ops N to R -----------------------------===//
//
// Converters of the default-domain ONNX ops whose names start with N
// to R, keyed by the opset they apply from.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

using namespace mlir;

namespace nnc::onnx_import {

void populateDefaultDomainNtoR(OpRegistry &registry) {
}

} // namespace nnc::onnx_import
