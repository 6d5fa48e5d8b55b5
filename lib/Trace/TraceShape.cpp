//===- TraceShape.cpp - shape ops on traced values ------------------------===//
//
// reshape, expand (whose result types the tracer computes from the requested
// shape), and every other shape op of the dialect (inferred types).
//
//===----------------------------------------------------------------------===//

#include "TraceDetail.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace nnc;
using namespace nnc::trace_impl;

TValue nnc::reshape(TValue x, ArrayRef<int64_t> shape, Site site) {
  StringRef opName = ReshapeOp::getOperationName();
  Tracer *t = resolve(site, opName, {x});
  if (!t)
    return Traced{x.tracer(), {}};
  RankedTensorType in = x.getType();
  SmallVector<int64_t> dims;
  std::optional<size_t> inferred;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == -1 && !inferred) {
      inferred = i;
      dims.push_back(ShapedType::kDynamic);
      continue;
    }
    if (d < 0) {
      t->recordError(site, opName,
                     llvm::formatv("target shape {0} may hold one -1 and "
                                   "otherwise non-negative sizes",
                                   formatList(shape))
                         .str());
      return Traced{t, {}};
    }
    dims.push_back(d);
  }
  if (inferred && in.hasStaticShape()) {
    SmallVector<int64_t> others(dims);
    others.erase(others.begin() + *inferred);
    std::optional<int64_t> count = getNumElements(in.getShape());
    std::optional<int64_t> known = getNumElements(others);
    if (!count || !known || *known == 0 || *count % *known != 0) {
      t->recordError(site, opName,
                     llvm::formatv("cannot reshape {0} to {1}",
                                   formatShape(in.getShape()),
                                   formatList(shape))
                         .str());
      return Traced{t, {}};
    }
    dims[*inferred] = *count / *known;
  }
  Type type = in.clone(dims);
  return Traced{t, buildSpelled<ReshapeOp>(*t, site, {type}, {x.value()})};
}

TValue nnc::expand(TValue x, ArrayRef<int64_t> shape, Site site) {
  StringRef opName = ExpandOp::getOperationName();
  Tracer *t = resolve(site, opName, {x});
  if (!t)
    return Traced{x.tracer(), {}};
  RankedTensorType in = x.getType();
  int64_t offset = static_cast<int64_t>(shape.size()) - in.getRank();
  SmallVector<int64_t> dims;
  for (auto [i, d] : llvm::enumerate(shape)) {
    int64_t inIndex = static_cast<int64_t>(i) - offset;
    if (d == -1 && inIndex >= 0) {
      dims.push_back(in.getDimSize(inIndex));
      continue;
    }
    if (d < 0) {
      t->recordError(
          site, opName,
          llvm::formatv("target shape {0} for input shape {1}: -1 may only "
                        "stand for an input dimension",
                        formatList(shape), formatShape(in.getShape()))
              .str());
      return Traced{t, {}};
    }
    dims.push_back(d);
  }
  Type type = in.clone(dims);
  return Traced{t, buildSpelled<ExpandOp>(*t, site, {type}, {x.value()})};
}

TValue nnc::transpose(TValue x, ArrayRef<int64_t> perm, Site site) {
  return trace<TransposeOp>(site, {x}, {}, [&](Tracer &t) {
    return AttrList{namedI64Array(t, "perm", perm)};
  });
}

TValue nnc::concat(ArrayRef<TValue> xs, int64_t axis, Site site) {
  if (xs.empty())
    return TValue(); // No tracer to record the error on.
  return trace<ConcatOp>(site, xs, {}, [&](Tracer &t) {
    return AttrList{namedI64(t, "axis", axis)};
  });
}

std::vector<TValue> nnc::split(TValue x, int64_t axis, ArrayRef<int64_t> sizes,
                               Site site) {
  Traced r = trace<SplitOp>(site, {x}, {}, [&](Tracer &t) {
    return AttrList{namedI64(t, "axis", axis),
                    namedI64Array(t, "sizes", sizes)};
  });
  std::vector<TValue> parts;
  for (unsigned i = 0, e = sizes.size(); i < e; ++i)
    parts.push_back(r[i]);
  return parts;
}

TValue nnc::slice(TValue x, ArrayRef<int64_t> starts, ArrayRef<int64_t> ends,
                  ArrayRef<int64_t> axes, ArrayRef<int64_t> steps, Site site) {
  return trace<SliceOp>(site, {x}, {}, [&](Tracer &t) {
    AttrList list{namedI64Array(t, "starts", starts),
                  namedI64Array(t, "ends", ends)};
    if (!axes.empty())
      list.push_back(namedI64Array(t, "axes", axes));
    if (!steps.empty())
      list.push_back(namedI64Array(t, "steps", steps));
    return list;
  });
}

TValue nnc::pad(TValue x, ArrayRef<int64_t> pads, PadMode mode, double value,
                Site site) {
  return trace<PadOp>(site, {x}, {}, [&](Tracer &t) {
    return AttrList{
        namedI64Array(t, "pads", pads),
        namedAttr(t, "mode", PadModeAttr::get(t.getContext(), mode)),
        namedF64(t, "value", value)};
  });
}

TValue nnc::tile(TValue x, ArrayRef<int64_t> repeats, Site site) {
  return trace<TileOp>(site, {x}, {}, [&](Tracer &t) {
    return AttrList{namedI64Array(t, "repeats", repeats)};
  });
}

TValue nnc::squeeze(TValue x, ArrayRef<int64_t> axes, Site site) {
  return trace<SqueezeOp>(site, {x}, {}, [&](Tracer &t) {
    AttrList list;
    if (!axes.empty())
      list.push_back(namedI64Array(t, "axes", axes));
    return list;
  });
}

TValue nnc::unsqueeze(TValue x, ArrayRef<int64_t> axes, Site site) {
  return trace<UnsqueezeOp>(site, {x}, {}, [&](Tracer &t) {
    return AttrList{namedI64Array(t, "axes", axes)};
  });
}

TValue nnc::flatten(TValue x, int64_t axis, Site site) {
  return trace<FlattenOp>(site, {x}, {}, [&](Tracer &t) {
    return AttrList{namedI64(t, "axis", axis)};
  });
}

TValue nnc::trilu(TValue x, bool upper, int64_t k, Site site) {
  return trace<TriluOp>(site, {x}, {}, [&](Tracer &t) {
    return AttrList{namedBool(t, "upper", upper), namedI64(t, "k", k)};
  });
}

TValue nnc::tril(TValue x, int64_t k, Site site) {
  return trilu(x, /*upper=*/false, k, site);
}

TValue nnc::triu(TValue x, int64_t k, Site site) {
  return trilu(x, /*upper=*/true, k, site);
}

TValue nnc::depthToSpace(TValue x, int64_t blocksize, StringRef mode,
                         Site site) {
  return trace<DepthToSpaceOp>(site, {x}, {}, [&](Tracer &t) {
    return AttrList{namedI64(t, "blocksize", blocksize),
                    namedAttr(t, "mode", t.getBuilder().getStringAttr(mode))};
  });
}

TValue nnc::spaceToDepth(TValue x, int64_t blocksize, Site site) {
  return trace<SpaceToDepthOp>(site, {x}, {}, [&](Tracer &t) {
    return AttrList{namedI64(t, "blocksize", blocksize)};
  });
}

TValue nnc::gather(TValue data, TValue indices, int64_t axis, Site site) {
  return trace<GatherOp>(site, {data, indices}, {}, [&](Tracer &t) {
    return AttrList{namedI64(t, "axis", axis)};
  });
}

TValue nnc::gatherElements(TValue data, TValue indices, int64_t axis,
                           Site site) {
  return trace<GatherElementsOp>(site, {data, indices}, {}, [&](Tracer &t) {
    return AttrList{namedI64(t, "axis", axis)};
  });
}

TValue nnc::scatterElements(TValue data, TValue indices, TValue updates,
                            int64_t axis, ScatterReduction reduction,
                            Site site) {
  return trace<ScatterElementsOp>(
      site, {data, indices, updates}, {}, [&](Tracer &t) {
        return AttrList{
            namedI64(t, "axis", axis),
            namedAttr(t, "reduction",
                      ScatterReductionAttr::get(t.getContext(), reduction))};
      });
}

TValue nnc::scatterND(TValue data, TValue indices, TValue updates,
                      ScatterReduction reduction, Site site) {
  return trace<ScatterNDOp>(site, {data, indices, updates}, {}, [&](Tracer &t) {
    return AttrList{namedAttr(
        t, "reduction", ScatterReductionAttr::get(t.getContext(), reduction))};
  });
}

TValue nnc::oneHot(TValue indices, int64_t depth, DType dtype,
                   OneHotOptions options, Site site) {
  return trace<OneHotOp>(site, {indices}, {}, [&](Tracer &t) {
    Type elementType = getElementType(t.getContext(), dtype);
    return AttrList{namedI64(t, "depth", depth),
                    namedI64(t, "axis", options.axis),
                    namedF64(t, "on_value", options.onValue),
                    namedF64(t, "off_value", options.offValue),
                    namedAttr(t, "element_type", TypeAttr::get(elementType))};
  });
}
