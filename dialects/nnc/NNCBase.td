//===- NNCBase.td - nnc dialect definition -----------------*- tablegen -*-===//
//
// The nnc dialect: tensor-level neural network ops with value semantics on
// builtin tensor types. This file holds the dialect, its attributes and enums,
// the type constraints and the base op class every op family uses.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_BASE_TD
#define NNC_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "nnc/NNCInterfaces.td"

def NNC_Dialect : Dialect {
  let name = "nnc";
  let cppNamespace = "::nnc";
  let summary = "Tensor-level neural network operations";
  let description = [{
    The `nnc` dialect is the entry IR of the nnc compiler. ONNX models and
    traced C++ programs are imported into it; autodiff, fusion, mixed precision,
    rematerialization and code generation start from it.

    Ops have value semantics on builtin ranked `tensor` types whose element
    types are `f32`, `f16`, `bf16`, `f64`, `i64`, `i32`, `i8` or `i1`. Dynamic
    dimensions (`?`) are legal; compilation specializes them on the concrete
    shapes seen at run time. Result types are inferred from operands and
    attributes wherever they can be, so most ops only spell their operand
    types.

    Weights and state are not constants: they are function arguments marked
    with the `nnc.param` argument attribute, so one compiled step serves any
    weights and the runtime owns their memory.

    ```mlir
    func.func @linear(%x: tensor<?x64xf32>,
                      %w: tensor<64x10xf32> {nnc.param = #nnc.param<trainable>},
                      %b: tensor<10xf32> {nnc.param = #nnc.param<trainable>})
        -> tensor<?x10xf32> {
      %0 = nnc.matmul %x, %w : tensor<?x64xf32>, tensor<64x10xf32>
      %1 = nnc.add %0, %b : tensor<?x10xf32>, tensor<10xf32>
      return %1 : tensor<?x10xf32>
    }
    ```
  }];
  // Resolving a dynamic shape op keeps its declared type with tensor.cast.
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasRegionArgAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The argument attribute that marks parameters and buffers.
    static constexpr ::llvm::StringLiteral getParamAttrName() {
      return ::llvm::StringLiteral("nnc.param");
    }
    /// The argument attribute holding a parameter's value (an ElementsAttr
    /// of the argument's type): what a compiled executable embeds as its
    /// weights.
    static constexpr ::llvm::StringLiteral getValueAttrName() {
      return ::llvm::StringLiteral("nnc.value");
    }
    /// The unit argument attribute the compiler puts on an argument whose
    /// value it moved into the executable's weights: the same bytes for the
    /// life of a loaded program, which kernels may keep derived copies of
    /// (oneDNN's reordered convolution weights).
    static constexpr ::llvm::StringLiteral getWeightAttrName() {
      return ::llvm::StringLiteral("nnc.weight");
    }
    /// The function attribute naming its results (an array of strings, one
    /// per result), e.g. the graph outputs of an imported ONNX model.
    static constexpr ::llvm::StringLiteral getResultNamesAttrName() {
      return ::llvm::StringLiteral("nnc.result_names");
    }
    /// The unit argument attribute that marks an integer input whose values
    /// shape results (a Reshape's target, a Range's limit): compilation
    /// specializes on its values as on the inputs' shapes, and the runtime
    /// checks that a run passes the values the executable was compiled for.
    static constexpr ::llvm::StringLiteral getShapeInputAttrName() {
      return ::llvm::StringLiteral("nnc.shape_input");
    }
    /// The argument attribute naming an input's dimensions (an array of
    /// strings, one per dimension; "" for an unnamed one), e.g. ONNX's
    /// `dim_param`s. Dimensions of the same name must agree when a run binds
    /// its shapes.
    static constexpr ::llvm::StringLiteral getDimNamesAttrName() {
      return ::llvm::StringLiteral("nnc.dim_names");
    }

    /// The kernel chosen for an op that has several ways to run (a
    /// convolution: "library", "per_image", "gemm", "loops"), a string the
    /// lowering obeys. The target's cost model or the autotuner sets it;
    /// tests force it. Absent: the lowering's own rules.
    static constexpr ::llvm::StringLiteral getKernelChoiceAttrName() {
      return ::llvm::StringLiteral("nnc.impl");
    }

  private:
    // Each op family registers its ops from its own translation unit.
    void registerAttributes();
    void registerElementwiseOps();
    void registerLinalgOps();
    void registerNNOps();
    void registerReductionOps();
    void registerShapeOps();
    void registerDynamicShapeOps();
    void registerLibraryOps();
  }];
}

//===----------------------------------------------------------------------===//
// Element and tensor type constraints
//===----------------------------------------------------------------------===//

def NNC_Float : AnyTypeOf<[F16, BF16, F32, F64], "floating-point">;
def NNC_Int : AnyTypeOf<[I8, I32, I64], "signless integer">;
def NNC_Bool : TypeAlias<I1, "boolean">;
def NNC_Numeric : AnyTypeOf<[NNC_Float, NNC_Int], "numeric">;
def NNC_Element : AnyTypeOf<[NNC_Float, NNC_Int, I1], "nnc element">;
def NNC_Index : AnyTypeOf<[I32, I64], "index (i32 or i64)">;

def NNC_Tensor : RankedTensorOf<[NNC_Element]>;
def NNC_FloatTensor : RankedTensorOf<[NNC_Float]>;
def NNC_NumericTensor : RankedTensorOf<[NNC_Numeric]>;
def NNC_IntTensor : RankedTensorOf<[NNC_Int]>;
def NNC_BoolTensor : RankedTensorOf<[I1]>;
def NNC_IndexTensor : RankedTensorOf<[NNC_Index]>;
def NNC_LogicalTensor : RankedTensorOf<[I1, NNC_Int]>;

//===----------------------------------------------------------------------===//
// Attributes and enums
//===----------------------------------------------------------------------===//

def NNC_ParamKind : I32EnumAttr<"ParamKind", "role of a function argument", [
    I32EnumAttrCase<"trainable", 0>,
    I32EnumAttrCase<"frozen", 1>,
    I32EnumAttrCase<"buffer", 2>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::nnc";
}

def NNC_ParamAttr : EnumAttr<NNC_Dialect, NNC_ParamKind, "param"> {
  let summary = "Marks a function argument as a parameter or buffer";
  let description = [{
    Attached to a function argument as `nnc.param`: `trainable` arguments are
    weights that autodiff differentiates and optimizers update, `frozen`
    arguments are weights held fixed, and `buffer` arguments are state such as
    batch-norm running statistics.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def NNC_CmpPredicate : I32EnumAttr<"CmpPredicate", "comparison predicate", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>
  ]> {
  let cppNamespace = "::nnc";
}

def NNC_ReduceKind : I32EnumAttr<"ReduceKind", "reduction kind", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"mean", 1>,
    I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>,
    I32EnumAttrCase<"prod", 4>, I32EnumAttrCase<"l1", 5>,
    I32EnumAttrCase<"l2", 6>, I32EnumAttrCase<"log_sum", 7>,
    I32EnumAttrCase<"log_sum_exp", 8>, I32EnumAttrCase<"sum_square", 9>
  ]> {
  let cppNamespace = "::nnc";
}

def NNC_ArgReduceKind : I32EnumAttr<"ArgReduceKind", "arg-reduction kind", [
    I32EnumAttrCase<"argmax", 0>, I32EnumAttrCase<"argmin", 1>
  ]> {
  let cppNamespace = "::nnc";
}

def NNC_LossReduction : I32EnumAttr<"LossReduction", "loss reduction", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"mean", 1>,
    I32EnumAttrCase<"sum", 2>
  ]> {
  let cppNamespace = "::nnc";
}

def NNC_PadMode : I32EnumAttr<"PadMode", "padding mode", [
    I32EnumAttrCase<"constant", 0>, I32EnumAttrCase<"reflect", 1>,
    I32EnumAttrCase<"edge", 2>, I32EnumAttrCase<"wrap", 3>
  ]> {
  let cppNamespace = "::nnc";
}

def NNC_ScatterReduction : I32EnumAttr<"ScatterReduction",
    "how scattered updates combine with existing values", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"add", 1>,
    I32EnumAttrCase<"mul", 2>, I32EnumAttrCase<"max", 3>,
    I32EnumAttrCase<"min", 4>
  ]> {
  let cppNamespace = "::nnc";
}

def NNC_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "GELU approximation", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"tanh", 1>
  ]> {
  let cppNamespace = "::nnc";
}

//===----------------------------------------------------------------------===//
// Base op class
//===----------------------------------------------------------------------===//

class NNC_Op<string mnemonic, list<Trait> traits = []>
    : Op<NNC_Dialect, mnemonic, traits>;

#endif // NNC_BASE_TD
