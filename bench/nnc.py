#===- bench/nnc.py - a ctypes binding of the parts of nnc's C API ---------===#
#
# The functions of include/nnc-c/nnc.h that the benchmark harness needs:
# contexts, ONNX import and MLIR parsing, compilation, executables and their
# stats, host tensors, and trainers with the stats of their step and of its
# memory budget (rematerialization). The structs
# mirror the header field for field; the header's static inline `_initialize`
# functions are redone here with the same defaults, struct_size stamped with
# ctypes.sizeof. Every status is checked and turned into NNCError carrying
# its code name and message.
#
#===----------------------------------------------------------------------===#

import ctypes
import os

import numpy as np

# From include/nnc-c/nnc.h.
NNC_ABI_VERSION = 1
NNC_API_VERSION = (0 << 16) | (1 << 8) | 0

# nnc_dtype_t
DTYPE_F32, DTYPE_F16, DTYPE_BF16, DTYPE_F64 = 0, 1, 2, 3
DTYPE_I64, DTYPE_I32, DTYPE_I8, DTYPE_U8, DTYPE_BOOL = 4, 5, 6, 7, 8
_NUMPY_DTYPES = {
    np.dtype(np.float32): DTYPE_F32,
    np.dtype(np.float16): DTYPE_F16,
    np.dtype(np.float64): DTYPE_F64,
    np.dtype(np.int64): DTYPE_I64,
    np.dtype(np.int32): DTYPE_I32,
    np.dtype(np.int8): DTYPE_I8,
    np.dtype(np.uint8): DTYPE_U8,
    np.dtype(np.bool_): DTYPE_BOOL,
}
_FROM_DTYPE = {v: k for k, v in _NUMPY_DTYPES.items()}

# nnc_loss_t, nnc_optimizer_t, nnc_lr_schedule_t
LOSS_CROSS_ENTROPY, LOSS_NLL, LOSS_MSE = 0, 1, 2
OPTIMIZER_SGD, OPTIMIZER_ADAM, OPTIMIZER_ADAMW = 0, 1, 2
LR_CONSTANT, LR_STEP, LR_COSINE = 0, 1, 2

_c_enum = ctypes.c_int  # C enums here are int-sized


class ContextOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t),
                ("abi_version", ctypes.c_uint32),
                ("enable_multithreading", ctypes.c_int32)]

    def __init__(self):
        super().__init__(ctypes.sizeof(ContextOptions), NNC_ABI_VERSION, 1)


class ImportOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t),
                ("abi_version", ctypes.c_uint32),
                ("function_name", ctypes.c_char_p),
                ("freeze_initializers", ctypes.c_int32),
                ("model_directory", ctypes.c_char_p),
                ("integer_inputs_directory", ctypes.c_char_p)]

    def __init__(self):
        super().__init__(ctypes.sizeof(ImportOptions), NNC_ABI_VERSION, None,
                         0, None, None)


class CompileOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t),
                ("abi_version", ctypes.c_uint32),
                ("target", ctypes.c_char_p),
                ("precision", _c_enum),
                ("cache_dir", ctypes.c_char_p),
                ("opt_level", ctypes.c_int32),
                ("num_threads", ctypes.c_int32),
                ("fuse", ctypes.c_int32),
                ("measure_unfused", ctypes.c_int32),
                ("plan_memory", ctypes.c_int32),
                ("library_kernels", ctypes.c_int32),
                ("autotune", _c_enum),
                ("tuning_database", ctypes.c_char_p),
                ("tuning_budget_seconds", ctypes.c_double),
                ("amp_low_ops", ctypes.c_char_p),
                ("amp_f32_ops", ctypes.c_char_p),
                ("cuda_graph", ctypes.c_int32)]

    # nnc_autotune_t
    AUTOTUNE = {"off": 0, "cached": 1, "on": 2, "require": 3}
    # nnc_precision_t
    PRECISION = {"f32": 0, "f16": 1, "bf16": 2}

    def __init__(self, cache_dir=None, num_threads=0, opt_level=2, fuse=1,
                 measure_unfused=0, plan_memory=1, library_kernels=1,
                 autotune="cached", tuning_database=None,
                 tuning_budget_seconds=120.0, precision="f32", target=None,
                 cuda_graph=0):
        super().__init__(ctypes.sizeof(CompileOptions), NNC_ABI_VERSION,
                         None if target is None else target.encode(),
                         self.PRECISION[precision],
                         None if cache_dir is None else cache_dir.encode(),
                         opt_level, num_threads, fuse, measure_unfused,
                         plan_memory, library_kernels,
                         self.AUTOTUNE[autotune],
                         None if tuning_database is None
                         else tuning_database.encode(),
                         tuning_budget_seconds, None, None, cuda_graph)


class TrainOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t),
                ("abi_version", ctypes.c_uint32),
                ("output", ctypes.c_char_p),
                ("loss", _c_enum),
                ("loss_sum", ctypes.c_int32),
                ("label_smoothing", ctypes.c_double),
                ("has_ignore_index", ctypes.c_int32),
                ("ignore_index", ctypes.c_int64),
                ("optimizer", _c_enum),
                ("learning_rate", ctypes.c_double),
                ("momentum", ctypes.c_double),
                ("nesterov", ctypes.c_int32),
                ("weight_decay", ctypes.c_double),
                ("beta1", ctypes.c_double),
                ("beta2", ctypes.c_double),
                ("epsilon", ctypes.c_double),
                ("schedule", _c_enum),
                ("warmup_steps", ctypes.c_int64),
                ("total_steps", ctypes.c_int64),
                ("step_size", ctypes.c_int64),
                ("gamma", ctypes.c_double),
                ("min_learning_rate", ctypes.c_double),
                ("accumulate", ctypes.c_int64),
                ("loss_scale", ctypes.c_double),
                ("seed", ctypes.c_uint64),
                ("name_nonfinite", ctypes.c_int32),
                ("memory_budget_bytes", ctypes.c_uint64),
                ("memory_budget_fraction", ctypes.c_double),
                ("sync_batch_norm", ctypes.c_int32),
                ("weight_copies", ctypes.c_int32)]

    def __init__(self, **overrides):
        # The defaults of nnc_train_options_initialize.
        super().__init__(
            struct_size=ctypes.sizeof(TrainOptions),
            abi_version=NNC_ABI_VERSION, output=None,
            loss=LOSS_CROSS_ENTROPY, loss_sum=0, label_smoothing=0.0,
            has_ignore_index=0, ignore_index=-100, optimizer=OPTIMIZER_ADAM,
            learning_rate=1e-3, momentum=0.0, nesterov=0, weight_decay=0.0,
            beta1=0.9, beta2=0.999, epsilon=1e-8, schedule=LR_CONSTANT,
            warmup_steps=0, total_steps=0, step_size=0, gamma=0.1,
            min_learning_rate=0.0, accumulate=1, loss_scale=1.0, seed=0,
            name_nonfinite=1, memory_budget_bytes=0,
            memory_budget_fraction=0.0, sync_batch_norm=0, weight_copies=1)
        for k, v in overrides.items():
            setattr(self, k, v)


class RematStats(ctypes.Structure):
    """nnc_remat_stats_t: what the memory budget did to a trainer's step."""
    _fields_ = [("struct_size", ctypes.c_size_t),
                ("budget_bytes", ctypes.c_uint64),
                ("peak_before_bytes", ctypes.c_uint64),
                ("peak_after_bytes", ctypes.c_uint64),
                ("predicted_arena_bytes", ctypes.c_uint64),
                ("planned_arena_bytes", ctypes.c_uint64),
                ("flops", ctypes.c_double),
                ("extra_flops", ctypes.c_double),
                ("recomputed_count", ctypes.c_uint32),
                ("kept_count", ctypes.c_uint32)]

    @classmethod
    def empty(cls):
        """A struct with struct_size set, to be filled by nnc."""
        s = cls()
        s.struct_size = ctypes.sizeof(cls)
        return s


class ValueInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p),
                ("kind", _c_enum),
                ("dtype", _c_enum),
                ("rank", ctypes.c_size_t),
                ("dims", ctypes.POINTER(ctypes.c_int64))]

    def shape(self):
        return tuple(self.dims[i] for i in range(self.rank))


class Shape(ctypes.Structure):
    _fields_ = [("rank", ctypes.c_size_t),
                ("dims", ctypes.POINTER(ctypes.c_int64))]


class ExecutableStats(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t),
                ("kernel_count", ctypes.c_uint32),
                ("library_calls", ctypes.c_uint32),
                ("code_bytes", ctypes.c_uint64),
                ("weight_bytes", ctypes.c_uint64),
                ("peak_memory_bytes", ctypes.c_uint64),
                ("compile_seconds", ctypes.c_double),
                ("from_cache", ctypes.c_int32),
                ("arena_bytes", ctypes.c_uint64),
                ("kernel_alloc_bytes", ctypes.c_uint64),
                ("bytes_moved", ctypes.c_uint64),
                ("unfused_kernel_count", ctypes.c_uint32),
                ("unfused_bytes_moved", ctypes.c_uint64)]

    @classmethod
    def empty(cls):
        """A struct with struct_size set, to be filled by nnc."""
        s = cls()
        s.struct_size = ctypes.sizeof(cls)
        return s


class TunedKernel(ctypes.Structure):
    # nnc_tuned_kernel_t: a kernel with candidates and the autotuner's choice
    _fields_ = [("struct_size", ctypes.c_size_t),
                ("kernel", ctypes.c_char_p),
                ("choice", ctypes.c_char_p),
                ("default_choice", ctypes.c_char_p),
                ("choice_ms", ctypes.c_double),
                ("default_ms", ctypes.c_double),
                ("source", ctypes.c_int32),
                ("program_check", ctypes.c_int32)]
    SOURCES = ("untuned", "database", "measured")
    CHECKS = (None, "kept", "turned down")

    def as_dict(self):
        return {"kernel": self.kernel.decode(errors="replace"),
                "choice": self.choice.decode(errors="replace"),
                "default": self.default_choice.decode(errors="replace"),
                "choice_ms": self.choice_ms if self.choice_ms >= 0 else None,
                "default_ms": self.default_ms if self.default_ms >= 0
                else None,
                "source": self.SOURCES[self.source]
                if 0 <= self.source < len(self.SOURCES) else self.source,
                "program_check": self.CHECKS[self.program_check]
                if 0 <= self.program_check < len(self.CHECKS)
                else self.program_check}


class TuningCheck(ctypes.Structure):
    # nnc_tuning_check_t: the autotuner's check of the whole program
    _fields_ = [("struct_size", ctypes.c_size_t),
                ("checked", ctypes.c_int32),
                ("skipped", ctypes.c_int32),
                ("changes", ctypes.c_int32),
                ("kept", ctypes.c_int32),
                ("variants", ctypes.c_int32),
                ("default_ms", ctypes.c_double),
                ("tuned_ms", ctypes.c_double)]


class StepInfo(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t),
                ("loss", ctypes.c_double),
                ("applied", ctypes.c_int32),
                ("skipped", ctypes.c_int32),
                ("learning_rate", ctypes.c_double),
                ("loss_scale", ctypes.c_double),
                ("step", ctypes.c_int64),
                ("seconds", ctypes.c_double),
                ("compiled", ctypes.c_int32),
                ("nonfinite", ctypes.c_char_p),
                ("probe_seconds", ctypes.c_double)]


_p = ctypes.c_void_p
_pp = ctypes.POINTER(ctypes.c_void_p)
_size = ctypes.c_size_t

# name: (restype, argtypes); restype _p means an nnc_status_t.
_SIGNATURES = {
    "nnc_api_version": (ctypes.c_uint32, []),
    "nnc_status_code": (_c_enum, [_p]),
    "nnc_status_message": (ctypes.c_char_p, [_p]),
    "nnc_status_code_name": (ctypes.c_char_p, [_c_enum]),
    "nnc_status_destroy": (None, [_p]),
    "nnc_context_create": (_p, [ctypes.POINTER(ContextOptions), _pp]),
    "nnc_context_destroy": (None, [_p]),
    "nnc_model_import_onnx_file":
        (_p, [_p, ctypes.c_char_p, ctypes.POINTER(ImportOptions), _pp]),
    "nnc_model_parse_mlir":
        (_p, [_p, ctypes.c_char_p, _size, ctypes.c_char_p, _pp]),
    "nnc_model_input_count": (_size, [_p]),
    "nnc_model_output_count": (_size, [_p]),
    "nnc_model_input_info":
        (_p, [_p, _size, ctypes.POINTER(ctypes.POINTER(ValueInfo))]),
    "nnc_model_destroy": (None, [_p]),
    "nnc_tensor_create":
        (_p, [_c_enum, _size, ctypes.POINTER(ctypes.c_int64), _pp]),
    "nnc_tensor_create_view": (_p, [_c_enum, _size,
                                    ctypes.POINTER(ctypes.c_int64), _p, _size,
                                    _pp]),
    "nnc_tensor_dtype": (_c_enum, [_p]),
    "nnc_tensor_rank": (_size, [_p]),
    "nnc_tensor_dims": (ctypes.POINTER(ctypes.c_int64), [_p]),
    "nnc_tensor_data": (_p, [_p]),
    "nnc_tensor_byte_size": (_size, [_p]),
    "nnc_tensor_destroy": (None, [_p]),
    "nnc_model_compile": (_p, [_p, ctypes.POINTER(CompileOptions), _size,
                               ctypes.POINTER(Shape), _pp]),
    "nnc_executable_input_count": (_size, [_p]),
    "nnc_executable_output_count": (_size, [_p]),
    "nnc_executable_stats": (_p, [_p, ctypes.POINTER(ExecutableStats)]),
    "nnc_executable_run": (_p, [_p, _size, _pp, _size, _pp]),
    "nnc_executable_destroy": (None, [_p]),
    "nnc_executable_tuned_kernel_count": (_size, [_p]),
    "nnc_executable_tuning_seconds": (ctypes.c_double, [_p]),
    "nnc_executable_tuned_kernel":
        (_p, [_p, _size, ctypes.POINTER(TunedKernel)]),
    "nnc_executable_tuning_check": (_p, [_p, ctypes.POINTER(TuningCheck)]),
    "nnc_trainer_create": (_p, [_p, ctypes.POINTER(TrainOptions),
                                ctypes.POINTER(CompileOptions), _pp]),
    "nnc_trainer_data_count": (_size, [_p]),
    "nnc_trainer_step": (_p, [_p, _size, _pp, ctypes.POINTER(StepInfo)]),
    "nnc_trainer_step_stats": (_p, [_p, ctypes.POINTER(ExecutableStats)]),
    "nnc_trainer_remat_stats": (_p, [_p, ctypes.POINTER(RematStats)]),
    "nnc_trainer_destroy": (None, [_p]),
    "nnc_trainer_tuned_kernel_count": (_size, [_p]),
    "nnc_trainer_tuning_seconds": (ctypes.c_double, [_p]),
    "nnc_trainer_tuned_kernel": (_p, [_p, _size, ctypes.POINTER(TunedKernel)]),
    "nnc_trainer_save": (_p, [_p, ctypes.c_char_p]),
    "nnc_trainer_load_file": (_p, [ctypes.c_char_p, _pp]),
}


class NNCError(RuntimeError):
    """A failed nnc call: `code` is the status code name ("unimplemented")."""

    def __init__(self, function, code, message):
        super().__init__("%s: %s: %s" % (function, code, message))
        self.function, self.code, self.message = function, code, message


class Library:
    """libnnc.so loaded with typed functions; `check` raises on a status."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        self._lib = ctypes.CDLL(self.path)
        # libnnc_runtime.so has the runtime's functions only: the compiler's
        # are left unbound there.
        for name, (restype, argtypes) in _SIGNATURES.items():
            fn = getattr(self._lib, name, None)
            if fn is None:
                continue
            fn.restype, fn.argtypes = restype, argtypes
            setattr(self, name, fn)

    def check(self, function, status):
        if not status:
            return
        code = self.nnc_status_code_name(self.nnc_status_code(status)).decode()
        message = self.nnc_status_message(status).decode(errors="replace")
        self.nnc_status_destroy(status)
        raise NNCError(function, code, message)

    def call(self, name, *args):
        self.check(name, getattr(self, name)(*args))

    def api_version(self):
        v = self.nnc_api_version()
        return "%d.%d.%d" % (v >> 16, (v >> 8) & 0xFF, v & 0xFF)


def _dims(shape):
    return (ctypes.c_int64 * max(len(shape), 1))(*shape)


class Tensor:
    """An nnc tensor: a view of a NumPy array (kept alive here) or a tensor
    nnc returned (owned here)."""

    def __init__(self, lib, handle, keep=None):
        self.lib, self.handle, self._keep = lib, handle, keep

    @classmethod
    def view(cls, lib, array):
        array = np.ascontiguousarray(array)
        out = ctypes.c_void_p()
        lib.call("nnc_tensor_create_view", _NUMPY_DTYPES[array.dtype],
                 array.ndim, _dims(array.shape), array.ctypes.data,
                 array.nbytes, ctypes.byref(out))
        return cls(lib, out, keep=array)

    def numpy(self):
        """A copy of the data as a NumPy array."""
        rank = self.lib.nnc_tensor_rank(self.handle)
        dims = self.lib.nnc_tensor_dims(self.handle)
        shape = tuple(dims[i] for i in range(rank))
        dtype = _FROM_DTYPE[self.lib.nnc_tensor_dtype(self.handle)]
        size = self.lib.nnc_tensor_byte_size(self.handle)
        raw = ctypes.string_at(self.lib.nnc_tensor_data(self.handle), size)
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()

    def close(self):
        if self.handle:
            self.lib.nnc_tensor_destroy(self.handle)
            self.handle = None

    __del__ = close


class Context:

    def __init__(self, lib):
        self.lib = lib
        self.handle = ctypes.c_void_p()
        options = ContextOptions()
        lib.call("nnc_context_create", ctypes.byref(options),
                 ctypes.byref(self.handle))

    def import_onnx(self, path):
        out = ctypes.c_void_p()
        options = ImportOptions()
        self.lib.call("nnc_model_import_onnx_file", self.handle,
                      path.encode(), ctypes.byref(options), ctypes.byref(out))
        return Model(self, out)

    def parse_mlir(self, text, name="model"):
        out = ctypes.c_void_p()
        data = text.encode()
        self.lib.call("nnc_model_parse_mlir", self.handle, data, len(data),
                      name.encode(), ctypes.byref(out))
        return Model(self, out)

    def close(self):
        if self.handle:
            self.lib.nnc_context_destroy(self.handle)
            self.handle = None


class Model:

    def __init__(self, context, handle):
        self.context, self.lib, self.handle = context, context.lib, handle

    def inputs(self):
        """(name, kind, dtype, shape) of every argument."""
        result = []
        for i in range(self.lib.nnc_model_input_count(self.handle)):
            info = ctypes.POINTER(ValueInfo)()
            self.lib.call("nnc_model_input_info", self.handle, i,
                          ctypes.byref(info))
            v = info.contents
            result.append((v.name.decode() if v.name else None, v.kind,
                           v.dtype, v.shape()))
        return result

    def compile(self, shapes, options):
        dims = [_dims(s) for s in shapes]
        arr = (Shape * max(len(shapes), 1))(
            *[Shape(len(s), d) for s, d in zip(shapes, dims)])
        out = ctypes.c_void_p()
        self.lib.call("nnc_model_compile", self.handle, ctypes.byref(options),
                      len(shapes), arr, ctypes.byref(out))
        return Executable(self.lib, out)

    def trainer(self, train_options, compile_options):
        out = ctypes.c_void_p()
        self.lib.call("nnc_trainer_create", self.handle,
                      ctypes.byref(train_options),
                      ctypes.byref(compile_options), ctypes.byref(out))
        return Trainer(self.lib, out)

    def close(self):
        if self.handle:
            self.lib.nnc_model_destroy(self.handle)
            self.handle = None


def _handles(tensors):
    return (ctypes.c_void_p * max(len(tensors), 1))(
        *[t.handle.value if isinstance(t.handle, ctypes.c_void_p) else t.handle
          for t in tensors])


def _tuned_kernels(lib, prefix, handle):
    """What nnc_<prefix>_tuned_kernel says of each kernel, as dicts."""
    out = []
    for i in range(getattr(lib, "nnc_%s_tuned_kernel_count" % prefix)(handle)):
        k = TunedKernel()
        k.struct_size = ctypes.sizeof(TunedKernel)
        lib.call("nnc_%s_tuned_kernel" % prefix, handle, i, ctypes.byref(k))
        out.append(k.as_dict())
    return out


class Executable:

    def __init__(self, lib, handle):
        self.lib, self.handle = lib, handle

    def stats(self):
        s = ExecutableStats.empty()
        self.lib.call("nnc_executable_stats", self.handle, ctypes.byref(s))
        return s

    def tuning_seconds(self):
        """Seconds the compile spent measuring kernel candidates."""
        return self.lib.nnc_executable_tuning_seconds(self.handle)

    def tuned_kernels(self):
        """The kernels with candidates and the autotuner's choices."""
        return _tuned_kernels(self.lib, "executable", self.handle)

    def tuning_check(self):
        """The autotuner's check of the whole program: a dict, or None when
        the compile had none."""
        c = TuningCheck()
        c.struct_size = ctypes.sizeof(TuningCheck)
        self.lib.call("nnc_executable_tuning_check", self.handle,
                      ctypes.byref(c))
        if not c.checked:
            return None
        return {"skipped": bool(c.skipped), "changes": c.changes,
                "kept": c.kept, "variants": c.variants,
                "default_ms": c.default_ms, "tuned_ms": c.tuned_ms}

    def run(self, inputs, keep_outputs=True):
        """Runs on `inputs` (Tensors); returns the outputs as NumPy arrays,
        or None (the outputs destroyed at once) when keep_outputs is false."""
        n_out = self.lib.nnc_executable_output_count(self.handle)
        outs = (ctypes.c_void_p * max(n_out, 1))()
        self.lib.call("nnc_executable_run", self.handle, len(inputs),
                      _handles(inputs), n_out, outs)
        tensors = [Tensor(self.lib, ctypes.c_void_p(outs[i]))
                   for i in range(n_out)]
        result = [t.numpy() for t in tensors] if keep_outputs else None
        for t in tensors:
            t.close()
        return result

    def close(self):
        if self.handle:
            self.lib.nnc_executable_destroy(self.handle)
            self.handle = None


class Trainer:

    def __init__(self, lib, handle):
        self.lib, self.handle = lib, handle

    def step(self, data):
        """One training step on `data` (Tensors: graph inputs, then labels);
        returns the StepInfo."""
        info = StepInfo()
        info.struct_size = ctypes.sizeof(StepInfo)
        self.lib.call("nnc_trainer_step", self.handle, len(data),
                      _handles(data), ctypes.byref(info))
        return info

    def save(self, path):
        """The trainer with the functions it compiled, for load_trainer (in
        a process with libnnc_runtime.so alone)."""
        self.lib.call("nnc_trainer_save", self.handle, path.encode())

    def step_stats(self):
        """The ExecutableStats of the executable that ran the latest step
        (NNCError "not found" before the first)."""
        s = ExecutableStats.empty()
        self.lib.call("nnc_trainer_step_stats", self.handle, ctypes.byref(s))
        return s

    def tuning_seconds(self):
        """Seconds the trainer's compiles spent measuring candidates."""
        return self.lib.nnc_trainer_tuning_seconds(self.handle)

    def tuned_kernels(self):
        """The kernels with candidates of the trainer's compiles so far."""
        return _tuned_kernels(self.lib, "trainer", self.handle)

    def remat_stats(self):
        """The RematStats of the step (or gradient function) compiled last:
        all zeros before the first step or without a memory budget."""
        s = RematStats.empty()
        self.lib.call("nnc_trainer_remat_stats", self.handle, ctypes.byref(s))
        return s

    def close(self):
        if self.handle:
            self.lib.nnc_trainer_destroy(self.handle)
            self.handle = None


def load_trainer(lib, path):
    """A trainer Trainer.save wrote (nnc_trainer_load_file)."""
    out = ctypes.c_void_p()
    lib.call("nnc_trainer_load_file", path.encode(), ctypes.byref(out))
    return Trainer(lib, out)
