//===- TraceNN.cpp - linear algebra, pooling, reductions, nn ops ----------===//
//
// matmul/gemm, convolutions and pooling, reductions, softmax, normalization,
// dropout and losses on traced values.
//
//===----------------------------------------------------------------------===//

#include "TraceDetail.h"

using namespace mlir;
using namespace nnc;
using namespace nnc::trace_impl;

/// Adds `name = values` when the list is not empty (the op's default).
static void addOptionalArray(Tracer &t, AttrList &list, StringRef name,
                             ArrayRef<int64_t> values) {
  if (!values.empty())
    list.push_back(namedI64Array(t, name, values));
}

//===----------------------------------------------------------------------===//
// Linear algebra, convolution, pooling
//===----------------------------------------------------------------------===//

TValue nnc::matmul(TValue x, TValue y, Site site) {
  return trace<MatMulOp>(site, {x, y});
}

TValue nnc::gemm(TValue a, TValue b, TValue c, GemmOptions options, Site site) {
  return trace<GemmOp>(site, {a, b, c}, {false, false, true}, [&](Tracer &t) {
    return AttrList{namedF64(t, "alpha", options.alpha),
                    namedF64(t, "beta", options.beta),
                    namedBool(t, "trans_a", options.transA),
                    namedBool(t, "trans_b", options.transB)};
  });
}

TValue nnc::conv(TValue x, TValue weight, TValue bias, ConvOptions options,
                 Site site) {
  return trace<ConvOp>(
      site, {x, weight, bias}, {false, false, true}, [&](Tracer &t) {
        AttrList list{namedI64(t, "groups", options.groups)};
        addOptionalArray(t, list, "strides", options.strides);
        addOptionalArray(t, list, "dilations", options.dilations);
        addOptionalArray(t, list, "pads", options.pads);
        return list;
      });
}

TValue nnc::convTranspose(TValue x, TValue weight, TValue bias,
                          ConvTransposeOptions options, Site site) {
  return trace<ConvTransposeOp>(
      site, {x, weight, bias}, {false, false, true}, [&](Tracer &t) {
        AttrList list{namedI64(t, "groups", options.groups)};
        addOptionalArray(t, list, "strides", options.strides);
        addOptionalArray(t, list, "dilations", options.dilations);
        addOptionalArray(t, list, "pads", options.pads);
        addOptionalArray(t, list, "output_padding", options.outputPadding);
        return list;
      });
}

/// The attributes both pooling ops share.
static AttrList poolAttrs(Tracer &t, ArrayRef<int64_t> kernelShape,
                          const PoolOptions &options) {
  AttrList list{namedI64Array(t, "kernel_shape", kernelShape),
                namedBool(t, "ceil_mode", options.ceilMode)};
  addOptionalArray(t, list, "strides", options.strides);
  addOptionalArray(t, list, "pads", options.pads);
  addOptionalArray(t, list, "dilations", options.dilations);
  return list;
}

TValue nnc::maxPool(TValue x, ArrayRef<int64_t> kernelShape,
                    PoolOptions options, Site site) {
  return trace<MaxPoolOp>(site, {x}, {}, [&](Tracer &t) {
    return poolAttrs(t, kernelShape, options);
  });
}

TValue nnc::avgPool(TValue x, ArrayRef<int64_t> kernelShape,
                    PoolOptions options, Site site) {
  return trace<AvgPoolOp>(site, {x}, {}, [&](Tracer &t) {
    AttrList list = poolAttrs(t, kernelShape, options);
    list.push_back(namedBool(t, "count_include_pad", options.countIncludePad));
    return list;
  });
}

TValue nnc::globalAvgPool(TValue x, Site site) {
  return trace<GlobalAvgPoolOp>(site, {x});
}

TValue nnc::globalMaxPool(TValue x, Site site) {
  return trace<GlobalMaxPoolOp>(site, {x});
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

TValue nnc::reduce(TValue x, ReduceKind kind, ReduceOptions options,
                   Site site) {
  return trace<ReduceOp>(site, {x}, {}, [&](Tracer &t) {
    return AttrList{
        namedAttr(t, "kind", ReduceKindAttr::get(t.getContext(), kind)),
        namedI64Array(t, "axes", options.axes),
        namedBool(t, "keepdims", options.keepdims),
        namedBool(t, "noop_with_empty_axes", options.noopWithEmptyAxes)};
  });
}

static ReduceOptions reduceOptions(ArrayRef<int64_t> axes, bool keepdims) {
  ReduceOptions options;
  options.axes.assign(axes.begin(), axes.end());
  options.keepdims = keepdims;
  return options;
}

TValue nnc::reduceSum(TValue x, ArrayRef<int64_t> axes, bool keepdims,
                      Site site) {
  return reduce(x, ReduceKind::sum, reduceOptions(axes, keepdims), site);
}

TValue nnc::reduceMean(TValue x, ArrayRef<int64_t> axes, bool keepdims,
                       Site site) {
  return reduce(x, ReduceKind::mean, reduceOptions(axes, keepdims), site);
}

TValue nnc::reduceMax(TValue x, ArrayRef<int64_t> axes, bool keepdims,
                      Site site) {
  return reduce(x, ReduceKind::max, reduceOptions(axes, keepdims), site);
}

TValue nnc::reduceMin(TValue x, ArrayRef<int64_t> axes, bool keepdims,
                      Site site) {
  return reduce(x, ReduceKind::min, reduceOptions(axes, keepdims), site);
}

static TValue argReduce(TValue x, ArgReduceKind kind, int64_t axis,
                        bool keepdims, bool selectLastIndex, Site site) {
  return trace<ArgReduceOp>(site, {x}, {}, [&](Tracer &t) {
    return AttrList{
        namedAttr(t, "kind", ArgReduceKindAttr::get(t.getContext(), kind)),
        namedI64(t, "axis", axis), namedBool(t, "keepdims", keepdims),
        namedBool(t, "select_last_index", selectLastIndex)};
  });
}

TValue nnc::argMax(TValue x, int64_t axis, bool keepdims, bool selectLastIndex,
                   Site site) {
  return argReduce(x, ArgReduceKind::argmax, axis, keepdims, selectLastIndex,
                   site);
}

TValue nnc::argMin(TValue x, int64_t axis, bool keepdims, bool selectLastIndex,
                   Site site) {
  return argReduce(x, ArgReduceKind::argmin, axis, keepdims, selectLastIndex,
                   site);
}

TValue nnc::cumsum(TValue x, int64_t axis, bool exclusive, bool reverse,
                   Site site) {
  return trace<CumSumOp>(site, {x}, {}, [&](Tracer &t) {
    return AttrList{namedI64(t, "axis", axis),
                    namedBool(t, "exclusive", exclusive),
                    namedBool(t, "reverse", reverse)};
  });
}

//===----------------------------------------------------------------------===//
// Softmax, normalization, dropout
//===----------------------------------------------------------------------===//

TValue nnc::softmax(TValue x, int64_t axis, Site site) {
  return trace<SoftmaxOp>(site, {x}, {}, [&](Tracer &t) {
    return AttrList{namedI64(t, "axis", axis)};
  });
}

TValue nnc::logSoftmax(TValue x, int64_t axis, Site site) {
  return trace<LogSoftmaxOp>(site, {x}, {}, [&](Tracer &t) {
    return AttrList{namedI64(t, "axis", axis)};
  });
}

TValue nnc::batchNorm(TValue x, TValue scale, TValue bias, TValue mean,
                      TValue var, double epsilon, Site site) {
  return trace<BatchNormOp>(
      site, {x, scale, bias, mean, var}, {},
      [&](Tracer &t) { return AttrList{namedF64(t, "epsilon", epsilon)}; });
}

BatchNormTrainResult nnc::batchNormTrain(TValue x, TValue scale, TValue bias,
                                         TValue runningMean, TValue runningVar,
                                         double epsilon, double momentum,
                                         Site site) {
  Traced r = trace<BatchNormTrainOp>(
      site, {x, scale, bias, runningMean, runningVar}, {}, [&](Tracer &t) {
        return AttrList{namedF64(t, "epsilon", epsilon),
                        namedF64(t, "momentum", momentum)};
      });
  return {r[0], r[1], r[2], r[3], r[4]};
}

NormResult nnc::layerNormWithStats(TValue x, TValue scale, TValue bias,
                                   int64_t axis, double epsilon, Site site) {
  Traced r = trace<
      LayerNormOp>(site, {x, scale, bias}, {false, true, true}, [&](Tracer &t) {
    int32_t sizes[] = {1, scale.isAbsent() ? 0 : 1, bias.isAbsent() ? 0 : 1};
    return AttrList{namedI64(t, "axis", axis), namedF64(t, "epsilon", epsilon),
                    namedAttr(t, "operandSegmentSizes",
                              t.getBuilder().getDenseI32ArrayAttr(sizes))};
  });
  return {r[0], r[1], r[2]};
}

TValue nnc::layerNorm(TValue x, TValue scale, TValue bias, int64_t axis,
                      double epsilon, Site site) {
  return layerNormWithStats(x, scale, bias, axis, epsilon, site).result;
}

NormResult nnc::groupNormWithStats(TValue x, TValue scale, TValue bias,
                                   int64_t numGroups, double epsilon,
                                   Site site) {
  Traced r = trace<GroupNormOp>(site, {x, scale, bias}, {}, [&](Tracer &t) {
    return AttrList{namedI64(t, "num_groups", numGroups),
                    namedF64(t, "epsilon", epsilon)};
  });
  return {r[0], r[1], r[2]};
}

TValue nnc::groupNorm(TValue x, TValue scale, TValue bias, int64_t numGroups,
                      double epsilon, Site site) {
  return groupNormWithStats(x, scale, bias, numGroups, epsilon, site).result;
}

NormResult nnc::instanceNormWithStats(TValue x, TValue scale, TValue bias,
                                      double epsilon, Site site) {
  Traced r = trace<InstanceNormOp>(site, {x, scale, bias}, {}, [&](Tracer &t) {
    return AttrList{namedF64(t, "epsilon", epsilon)};
  });
  return {r[0], r[1], r[2]};
}

TValue nnc::instanceNorm(TValue x, TValue scale, TValue bias, double epsilon,
                         Site site) {
  return instanceNormWithStats(x, scale, bias, epsilon, site).result;
}

DropoutResult nnc::dropoutWithMask(TValue x, DropoutOptions options,
                                   Site site) {
  Traced r = trace<DropoutOp>(site, {x}, {}, [&](Tracer &t) {
    AttrList list{namedF64(t, "ratio", options.ratio),
                  namedBool(t, "training", options.training)};
    if (options.seed)
      list.push_back(namedI64(t, "seed", *options.seed));
    return list;
  });
  return {r[0], r[1]};
}

TValue nnc::dropout(TValue x, DropoutOptions options, Site site) {
  return dropoutWithMask(x, options, site).output;
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// The attributes the class-index losses share.
static AttrList lossAttrs(Tracer &t, const LossOptions &options) {
  AttrList list{
      namedAttr(t, "reduction",
                LossReductionAttr::get(t.getContext(), options.reduction))};
  if (options.ignoreIndex)
    list.push_back(namedI64(t, "ignore_index", *options.ignoreIndex));
  return list;
}

TValue nnc::crossEntropy(TValue logits, TValue labels, LossOptions options,
                         Site site) {
  return trace<CrossEntropyOp>(
      site, {logits, labels, options.weight}, {false, false, true},
      [&](Tracer &t) {
        AttrList list = lossAttrs(t, options);
        list.push_back(namedF64(t, "label_smoothing", options.labelSmoothing));
        return list;
      });
}

TValue nnc::nllLoss(TValue logProbs, TValue labels, LossOptions options,
                    Site site) {
  return trace<NllLossOp>(site, {logProbs, labels, options.weight},
                          {false, false, true},
                          [&](Tracer &t) { return lossAttrs(t, options); });
}

TValue nnc::mseLoss(TValue x, TValue target, LossReduction reduction,
                    Site site) {
  return trace<MseLossOp>(site, {x, target}, {}, [&](Tracer &t) {
    return AttrList{namedAttr(
        t, "reduction", LossReductionAttr::get(t.getContext(), reduction))};
  });
}
