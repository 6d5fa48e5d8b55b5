// Emulation: the types and conversions are in nnc_cuda_emulation.h.
