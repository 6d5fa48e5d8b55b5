/*===- nnc-c/nnc.h - the public C API of nnc ----------------------*- C -*-===*\
|*                                                                            *|
|* The C interface programs use to embed nnc: both halves of it. A program    *|
|* that only runs saved executables may include nnc-c/runtime.h alone and     *|
|* link libnnc_runtime; one that imports, traces, compiles or trains includes *|
|* this (or nnc-c/compiler.h) and links libnnc. docs/CAPI.md has a worked     *|
|* example.                                                                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef NNC_C_NNC_H
#define NNC_C_NNC_H

#include "nnc-c/runtime.h"
#include "nnc-c/compiler.h"

#endif /* NNC_C_NNC_H */
