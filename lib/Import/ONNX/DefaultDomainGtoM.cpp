//===- DefaultDomainGtoM.cpp - ONNX ops G to M -----------------------------===//
//
// Converters of the default-domain ONNX ops whose names start with G
// to M, keyed by the opset they apply from.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

using namespace mlir;

namespace nnc::onnx_import {

void populateDefaultDomainGtoM(OpRegistry &registry) {
}

} // namespace nnc::onnx_import
