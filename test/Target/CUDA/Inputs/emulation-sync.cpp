// Checks nnc_cuda_emulation.h's barriers, shared memory, warp shuffles and
// votes (emulation-sync.test): kernels written as CUDA, run on the host.
// With an argument, runs a kernel that misuses them, which must fail.

#include <cstdio>
#include <cstring>
#include <vector>

// A block sum: each thread's value, a warp shuffle reduction, then shared
// memory and a barrier across warps; thread 0 writes the block's total.
__global__ void blockSum(const float *in, float *out, int n) {
  __shared__ float partial[32];
  float v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    v += in[i];
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0)
    partial[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w)
      s += partial[w];
    out[blockIdx.x] = s;
  }
}

// Each lane's results from every shuffle form and vote.
__global__ void lanes(int *out) {
  int lane = threadIdx.x % 32, *o = out + threadIdx.x * 8;
  o[0] = __shfl_sync(0xffffffffu, lane * 10, 3);
  o[1] = __shfl_up_sync(0xffffffffu, lane * 10, 2);
  o[2] = __shfl_down_sync(0xffffffffu, lane * 10, 2);
  o[3] = __shfl_xor_sync(0xffffffffu, lane * 10, 1);
  o[4] = __shfl_down_sync(0xffffffffu, lane * 10, 1, 8); // segments of 8
  o[5] = (int)__ballot_sync(0xffffffffu, lane % 3 == 0);
  o[6] = __any_sync(0xffffffffu, lane == 31) + 2 * __all_sync(0xffffffffu, lane < 31);
  // Only the even lanes take part.
  o[7] = -1;
  if (lane % 2 == 0)
    o[7] = __shfl_sync(0x55555555u, lane, (lane + 2) % 32);
}

// Threads store, meet at a barrier, then read a neighbour's store: without
// the barrier a thread would read before its neighbour wrote.
__global__ void neighbours(int *out) {
  __shared__ int values[64];
  values[threadIdx.x] = threadIdx.x * threadIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] =
      values[(threadIdx.x + 1) % blockDim.x];
}

// Misuse: lane 0 waits in a warp operation for lanes that wait at a
// barrier for it: a deadlock.
__global__ void deadlock(int *out) {
  if (threadIdx.x == 0)
    __syncwarp();
  else
    __syncthreads();
  out[threadIdx.x] = 1;
}

// Misuse: only block 1 reaches a barrier.
__global__ void lateBarrier(int *out) {
  if (blockIdx.x == 1)
    __syncthreads();
  out[blockIdx.x] = 1;
}

int main(int argc, char **argv) {
  if (argc > 1) {
    std::vector<int> out(64);
    if (std::strcmp(argv[1], "deadlock") == 0)
      nnc_emulate_launch(deadlock, 1, 64, out.data());
    else
      nnc_emulate_launch(lateBarrier, 2, 32, out.data());
    std::printf("no error\n");
    return 0;
  }
  std::vector<float> in(1000);
  for (int i = 0; i < 1000; ++i)
    in[i] = float(i % 7);
  std::vector<float> sums(3);
  nnc_emulate_launch(blockSum, 3, 96, in.data(), sums.data(), 1000);
  float total = sums[0] + sums[1] + sums[2], expected = 0;
  for (float v : in)
    expected += v;
  std::printf("block sums total %g expected %g\n", total, expected);

  std::vector<int> lane(64 * 8);
  nnc_emulate_launch(lanes, 1, 64, lane.data());
  for (int t : {0, 1, 5, 7, 31, 32, 63}) {
    std::printf("lane %d:", t);
    for (int k = 0; k < 8; ++k)
      std::printf(" %d", lane[t * 8 + k]);
    std::printf("\n");
  }

  std::vector<int> n(2 * 64);
  nnc_emulate_launch(neighbours, 2, 64, n.data());
  std::printf("neighbours: %d %d %d %d\n", n[0], n[62], n[63], n[64 + 63]);
  return 0;
}
