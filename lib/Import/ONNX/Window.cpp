//===- Window.cpp - ONNX window attributes --------------------------------===//
//
// Shared by the Conv, ConvTranspose and pooling converters: reads the window
// attributes and resolves auto_pad into the explicit pads nnc ops take.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "nnc/ShapeUtils.h"

using namespace mlir;

namespace nnc::onnx_import {

FailureOr<WindowParams> getWindowParams(NodeContext &ctx,
                                        RankedTensorType input,
                                        std::optional<ArrayRef<int64_t>> kernel,
                                        bool transposed) {
  if (!input || input.getRank() < 3)
    return ctx.emitError() << "expects an input of rank >= 3 ([N, C, "
                              "spatial...]), got "
                           << (input ? Twine(input.getRank()).str()
                                     : std::string("none"));
  int64_t rank = input.getRank() - 2;
  WindowParams p;
  if (kernel) {
    p.kernel.assign(kernel->begin(), kernel->end());
  } else {
    std::optional<SmallVector<int64_t>> k = ctx.getOptionalInts("kernel_shape");
    if (!k)
      return ctx.emitError() << "missing attribute 'kernel_shape'";
    p.kernel = *k;
  }
  if (static_cast<int64_t>(p.kernel.size()) != rank)
    return ctx.emitError() << "kernel_shape has " << p.kernel.size()
                           << " entries for " << rank << " spatial dims";
  p.strides = ctx.getInts("strides", SmallVector<int64_t>(rank, 1));
  p.dilations = ctx.getInts("dilations", SmallVector<int64_t>(rank, 1));
  if (static_cast<int64_t>(p.strides.size()) != rank ||
      static_cast<int64_t>(p.dilations.size()) != rank)
    return ctx.emitError() << "strides and dilations need " << rank
                           << " entries";
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    p.pads = ctx.getInts("pads", SmallVector<int64_t>(2 * rank, 0));
    if (static_cast<int64_t>(p.pads.size()) != 2 * rank)
      return ctx.emitError() << "pads has " << p.pads.size()
                             << " entries, expected " << 2 * rank;
    return p;
  }
  if (autoPad == "VALID") {
    p.pads.assign(2 * rank, 0);
    return p;
  }
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return ctx.emitError() << "unknown auto_pad '" << autoPad << "'";
  p.pads.assign(2 * rank, 0);
  // ConvTranspose's SAME pads depend on output_padding and may turn into
  // extra output padding; its converter resolves them from the target size.
  if (transposed)
    return p;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t in = input.getDimSize(i + 2);
    if (isDynamicDim(in))
      return ctx.emitError() << "auto_pad " << autoPad
                             << " needs static spatial dims, dim " << i + 2
                             << " is dynamic";
    if (p.strides[i] <= 0)
      return ctx.emitError() << "strides must be positive";
    int64_t effective = (p.kernel[i] - 1) * p.dilations[i] + 1;
    int64_t out = (in + p.strides[i] - 1) / p.strides[i];
    int64_t total =
        std::max<int64_t>(0, (out - 1) * p.strides[i] + effective - in);
    int64_t small = total / 2, large = total - small;
    bool upper = autoPad == "SAME_UPPER";
    p.pads[i] = upper ? small : large;
    p.pads[i + rank] = upper ? large : small;
  }
  return p;
}

} // namespace nnc::onnx_import
