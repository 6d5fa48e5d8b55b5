//===- NNCElementwiseOps.td - elementwise nnc ops ----------*- tablegen -*-===//
//
// Unary and broadcasting binary/ternary elementwise ops, comparisons, logical
// ops, casts and constants.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_ELEMENTWISE_OPS_TD
#define NNC_ELEMENTWISE_OPS_TD

include "nnc/NNCBase.td"
include "mlir/Interfaces/CastInterfaces.td"

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

// A unary op whose result has the operand's type. ODS derives the
// InferTypeOpInterface implementation from SameOperandsAndResultType.
class NNC_UnaryOp<string mnemonic, Type tensorType, string math,
                  list<Trait> traits = []>
    : NNC_Op<mnemonic, !listconcat(traits,
          [Pure, SameOperandsAndResultType])> {
  let summary = "elementwise " # math;
  let description = "Computes `" # math # "` for every element of the "
    # "operand; the result has the operand's type.\n\n"
    # "```mlir\n%y = nnc." # mnemonic # " %x : tensor<4x?xf32>\n```";
  let arguments = (ins tensorType:$input);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

class NNC_UnaryFloatOp<string mnemonic, string math, list<Trait> traits = []>
    : NNC_UnaryOp<mnemonic, NNC_FloatTensor, math, traits>;

def NNC_ExpOp : NNC_UnaryFloatOp<"exp", "exp(x)">;
def NNC_LogOp : NNC_UnaryFloatOp<"log", "log(x)">;
def NNC_SqrtOp : NNC_UnaryFloatOp<"sqrt", "sqrt(x)">;
def NNC_RsqrtOp : NNC_UnaryFloatOp<"rsqrt", "1 / sqrt(x)">;
def NNC_ReciprocalOp : NNC_UnaryFloatOp<"reciprocal", "1 / x">;
def NNC_SinOp : NNC_UnaryFloatOp<"sin", "sin(x)">;
def NNC_CosOp : NNC_UnaryFloatOp<"cos", "cos(x)">;
def NNC_TanOp : NNC_UnaryFloatOp<"tan", "tan(x)">;
def NNC_AsinOp : NNC_UnaryFloatOp<"asin", "asin(x)">;
def NNC_AcosOp : NNC_UnaryFloatOp<"acos", "acos(x)">;
def NNC_AtanOp : NNC_UnaryFloatOp<"atan", "atan(x)">;
def NNC_SinhOp : NNC_UnaryFloatOp<"sinh", "sinh(x)">;
def NNC_CoshOp : NNC_UnaryFloatOp<"cosh", "cosh(x)">;
def NNC_TanhOp : NNC_UnaryFloatOp<"tanh", "tanh(x)">;
def NNC_AsinhOp : NNC_UnaryFloatOp<"asinh", "asinh(x)">;
def NNC_AcoshOp : NNC_UnaryFloatOp<"acosh", "acosh(x)">;
def NNC_AtanhOp : NNC_UnaryFloatOp<"atanh", "atanh(x)">;
def NNC_ErfOp : NNC_UnaryFloatOp<"erf", "erf(x)">;
def NNC_SigmoidOp : NNC_UnaryFloatOp<"sigmoid", "1 / (1 + exp(-x))">;
def NNC_SoftplusOp : NNC_UnaryFloatOp<"softplus", "log(1 + exp(x))">;
def NNC_SoftsignOp : NNC_UnaryFloatOp<"softsign", "x / (1 + |x|)">;
def NNC_SiluOp : NNC_UnaryFloatOp<"silu", "x * sigmoid(x)">;
def NNC_MishOp : NNC_UnaryFloatOp<"mish", "x * tanh(softplus(x))">;
def NNC_HardSwishOp : NNC_UnaryFloatOp<"hard_swish",
    "x * max(0, min(1, x / 6 + 1 / 2))">;
def NNC_FloorOp : NNC_UnaryFloatOp<"floor", "floor(x)">;
def NNC_CeilOp : NNC_UnaryFloatOp<"ceil", "ceil(x)">;
def NNC_RoundOp : NNC_UnaryFloatOp<"round",
    "round(x), halfway cases to the nearest even integer">;

def NNC_NegOp : NNC_UnaryOp<"neg", NNC_NumericTensor, "-x"> {
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}
def NNC_AbsOp : NNC_UnaryOp<"abs", NNC_NumericTensor, "|x|">;
def NNC_SignOp : NNC_UnaryOp<"sign", NNC_NumericTensor,
    "sign(x): -1, 0 or 1">;
def NNC_ReluOp : NNC_UnaryOp<"relu", NNC_NumericTensor, "max(x, 0)">;
def NNC_NotOp : NNC_UnaryOp<"not", NNC_BoolTensor, "logical not"> {
  let hasFolder = 1;
}

// A unary float op with floating-point parameters, checked by the verifier.
class NNC_ParamUnaryOp<string mnemonic, string math, dag params>
    : NNC_UnaryFloatOp<mnemonic, math> {
  let arguments = !con((ins NNC_FloatTensor:$input), params);
  let description = "Computes `" # math # "` for every element of the "
    # "operand; the result has the operand's type.\n\n"
    # "```mlir\n%y = nnc." # mnemonic # " %x {alpha = 0.1 : f64} "
    # ": tensor<4x?xf32>\n```";
}

def NNC_LeakyReluOp : NNC_ParamUnaryOp<"leaky_relu",
    "x >= 0 ? x : alpha * x", (ins DefaultValuedAttr<F64Attr, "0.01">:$alpha)>;
def NNC_EluOp : NNC_ParamUnaryOp<"elu",
    "x >= 0 ? x : alpha * (exp(x) - 1)",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$alpha)>;
def NNC_CeluOp : NNC_ParamUnaryOp<"celu",
    "max(0, x) + min(0, alpha * (exp(x / alpha) - 1))",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$alpha)> {
  let hasVerifier = 1;
}
def NNC_SeluOp : NNC_ParamUnaryOp<"selu",
    "gamma * (x > 0 ? x : alpha * (exp(x) - 1))",
    (ins DefaultValuedAttr<F64Attr, "1.67326319217681884765625">:$alpha,
         DefaultValuedAttr<F64Attr, "1.05070102214813232421875">:$gamma)>;
def NNC_ThresholdedReluOp : NNC_ParamUnaryOp<"thresholded_relu",
    "x > alpha ? x : 0", (ins DefaultValuedAttr<F64Attr, "1.0">:$alpha)>;
def NNC_HardSigmoidOp : NNC_ParamUnaryOp<"hard_sigmoid",
    "max(0, min(1, alpha * x + beta))",
    (ins DefaultValuedAttr<F64Attr, "0.2">:$alpha,
         DefaultValuedAttr<F64Attr, "0.5">:$beta)>;

def NNC_GeluOp : NNC_UnaryFloatOp<"gelu", "x * Phi(x)"> {
  let description = [{
    Gaussian error linear unit, `x * Phi(x)` with `Phi` the standard normal
    CDF. With `approximation = tanh` it uses
    `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`.

    ```mlir
    %y = nnc.gelu %x approximation = tanh : tensor<8x768xf32>
    ```
  }];
  let arguments = (ins NNC_FloatTensor:$input,
      DefaultValuedAttr<NNC_GeluApproximation,
                        "::nnc::GeluApproximation::none">:$approximation);
  let assemblyFormat = [{
    $input (`approximation` `=` $approximation^)? attr-dict `:` type($input)
  }];
}

def NNC_ClipOp : NNC_UnaryOp<"clip", NNC_NumericTensor,
    "min(max(x, min), max)"> {
  let description = [{
    Clamps every element to `[min, max]`; a missing bound is unbounded. For
    integer tensors the bounds must be integral.

    ```mlir
    %y = nnc.clip %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<4xf32>
    ```
  }];
  let arguments = (ins NNC_NumericTensor:$input,
                       OptionalAttr<F64Attr>:$min, OptionalAttr<F64Attr>:$max);
  let hasVerifier = 1;
  let hasFolder = 1;
}

def NNC_IsNanOp : NNC_Op<"is_nan", [Pure, InferTypeOpAdaptor]> {
  let summary = "elementwise NaN test";
  let description = [{
    True where the element is NaN.

    ```mlir
    %m = nnc.is_nan %x : tensor<4xf32>
    ```
  }];
  let arguments = (ins NNC_FloatTensor:$input);
  let results = (outs NNC_BoolTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def NNC_IsInfOp : NNC_Op<"is_inf", [Pure, InferTypeOpAdaptor]> {
  let summary = "elementwise infinity test";
  let description = [{
    True where the element is +inf (if `detect_positive`) or -inf (if
    `detect_negative`).

    ```mlir
    %m = nnc.is_inf %x {detect_negative = false} : tensor<4xf32>
    ```
  }];
  let arguments = (ins NNC_FloatTensor:$input,
                       DefaultValuedAttr<BoolAttr, "true">:$detect_positive,
                       DefaultValuedAttr<BoolAttr, "true">:$detect_negative);
  let results = (outs NNC_BoolTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

//===----------------------------------------------------------------------===//
// Broadcasting binary ops
//===----------------------------------------------------------------------===//

// A binary op with numpy broadcasting whose result element type is the
// operands' element type.
class NNC_BinaryOp<string mnemonic, Type tensorType, string math,
                   list<Trait> traits = []>
    : NNC_Op<mnemonic, !listconcat(traits, [Pure, InferTypeOpAdaptor])> {
  let summary = "elementwise " # math # " with broadcasting";
  let description = "Computes `" # math # "` elementwise. The operands "
    # "have the same element type and shapes that broadcast as in numpy: "
    # "trailing dimensions are aligned and each pair must be equal or 1.\n\n"
    # "```mlir\n%z = nnc." # mnemonic
    # " %x, %y : tensor<8x?x16xf32>, tensor<16xf32>\n```";
  let arguments = (ins tensorType:$lhs, tensorType:$rhs);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::nnc::inferBroadcastBinary(loc, adaptor.getLhs().getType(),
                                         adaptor.getRhs().getType(),
                                         /*resultElementType=*/nullptr, types);
    }
  }];
}

def NNC_AddOp : NNC_BinaryOp<"add", NNC_NumericTensor, "x + y", [Commutative]> {
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}
def NNC_SubOp : NNC_BinaryOp<"sub", NNC_NumericTensor, "x - y"> {
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}
def NNC_MulOp : NNC_BinaryOp<"mul", NNC_NumericTensor, "x * y", [Commutative]> {
  let hasFolder = 1;
}
def NNC_DivOp : NNC_BinaryOp<"div", NNC_NumericTensor,
    "x / y (integer division truncates toward zero)"> {
  let hasFolder = 1;
}
def NNC_PowOp : NNC_BinaryOp<"pow", NNC_FloatTensor, "x ^ y">;
def NNC_MaxOp : NNC_BinaryOp<"max", NNC_NumericTensor, "max(x, y)",
    [Commutative]> {
  let hasFolder = 1;
}
def NNC_MinOp : NNC_BinaryOp<"min", NNC_NumericTensor, "min(x, y)",
    [Commutative]> {
  let hasFolder = 1;
}
def NNC_RemOp : NNC_BinaryOp<"rem", NNC_NumericTensor,
    "x mod y (sign of y; with fmod, sign of x)"> {
  let arguments = (ins NNC_NumericTensor:$lhs, NNC_NumericTensor:$rhs,
                       DefaultValuedAttr<BoolAttr, "false">:$fmod);
  let hasVerifier = 1;
}
def NNC_PReluOp : NNC_BinaryOp<"prelu", NNC_FloatTensor,
    "x >= 0 ? x : slope * x, slope broadcast to x">;
def NNC_AndOp : NNC_BinaryOp<"and", NNC_LogicalTensor, "x & y",
    [Commutative]>;
def NNC_OrOp : NNC_BinaryOp<"or", NNC_LogicalTensor, "x | y", [Commutative]>;
def NNC_XorOp : NNC_BinaryOp<"xor", NNC_LogicalTensor, "x ^ y",
    [Commutative]>;

def NNC_CmpOp : NNC_Op<"cmp", [Pure, InferTypeOpAdaptor]> {
  let summary = "elementwise comparison with broadcasting";
  let description = [{
    Compares two tensors of the same element type elementwise with numpy
    broadcasting and returns an `i1` tensor. Predicates: `eq`, `ne`, `lt`,
    `le`, `gt`, `ge`; integers compare as signed.

    ```mlir
    %m = nnc.cmp lt, %x, %y : tensor<4x8xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins NNC_CmpPredicate:$predicate, NNC_Tensor:$lhs,
                       NNC_Tensor:$rhs);
  let results = (outs NNC_BoolTensor:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)
  }];
  let hasFolder = 1;
}

def NNC_WhereOp : NNC_Op<"where", [Pure, InferTypeOpAdaptor]> {
  let summary = "elementwise select with broadcasting";
  let description = [{
    Selects `x` where `condition` is true and `y` elsewhere; the three
    operands broadcast together as in numpy.

    ```mlir
    %z = nnc.where %c, %x, %y : tensor<4x1xi1>, tensor<4x8xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins NNC_BoolTensor:$condition, NNC_Tensor:$true_value,
                       NNC_Tensor:$false_value);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` type($true_value) `,` type($false_value)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Casts and constants
//===----------------------------------------------------------------------===//

def NNC_CastOp : NNC_Op<"cast", [Pure,
    DeclareOpInterfaceMethods<CastOpInterface>,
    DeclareOpInterfaceMethods<NNC_ShapeRefinementOpInterface>]> {
  let summary = "elementwise element type conversion";
  let description = [{
    Converts each element to the result's element type; the shape is
    unchanged. Float to integer truncates toward zero, integer to `i1` is
    `x != 0`, `i1` to numbers is 0 or 1.

    ```mlir
    %y = nnc.cast %x : tensor<4x?xf32> to tensor<4x?xbf16>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
}

def NNC_ConstantOp : NNC_Op<"constant", [ConstantLike, Pure,
    InferTypeOpAdaptor]> {
  let summary = "a constant tensor";
  let description = [{
    A tensor whose value is known at compile time. Weights are parameters,
    not constants; constants are for values the model fixes (shapes, masks,
    scales).

    ```mlir
    %c = nnc.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

#endif // NNC_ELEMENTWISE_OPS_TD
