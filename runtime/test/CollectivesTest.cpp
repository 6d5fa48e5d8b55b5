//===- CollectivesTest.cpp - launch, the TCP store, Gloo over loopback ----===//
//
// The ranks are forked processes on 127.0.0.1, each with its own
// communicator, as `nnc-run train --nproc N` starts them. Each child reports
// through its exit status and stderr; an alarm ends a child that hangs.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Collectives.h"
#include "nnc/runtime/CudaDriver.h"

#include "TestUtils.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace nnc::runtime;
using nnc::runtime::test::contains;
using nnc::runtime::test::Environment;

namespace {

/// A TCP port nothing listens on now.
int freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t size = sizeof(address);
  if (::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof(address)) ||
      ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &size)) {
    ::close(fd);
    return 0;
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

const char *kLaunchVariables[] = {"RANK",
                                  "WORLD_SIZE",
                                  "LOCAL_RANK",
                                  "LOCAL_WORLD_SIZE",
                                  "SLURM_PROCID",
                                  "SLURM_NTASKS",
                                  "SLURM_LOCALID",
                                  "SLURM_NTASKS_PER_NODE",
                                  "OMPI_COMM_WORLD_RANK",
                                  "OMPI_COMM_WORLD_SIZE",
                                  "OMPI_COMM_WORLD_LOCAL_RANK",
                                  "OMPI_COMM_WORLD_LOCAL_SIZE",
                                  "MASTER_ADDR",
                                  "MASTER_PORT"};

void clearLaunch(Environment &env) {
  for (const char *name : kLaunchVariables)
    env.set(name, nullptr);
}

/// Forks one child per rank running `body(rank)`; a child exits 0 when
/// body returns true. Returns the exit codes (128 + signal when killed).
std::vector<int> runRanks(int world, int alarmSeconds,
                          const std::function<bool(int)> &body) {
  std::vector<pid_t> children;
  for (int rank = 0; rank < world; ++rank) {
    pid_t child = ::fork();
    if (child == 0) {
      ::alarm(alarmSeconds);
      bool ok = body(rank);
      std::fflush(stderr);
      ::_exit(ok ? 0 : 1);
    }
    children.push_back(child);
  }
  std::vector<int> codes;
  for (pid_t child : children) {
    int status = 0;
    ::waitpid(child, &status, 0);
    codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status)
                                      : 128 + WTERMSIG(status));
  }
  return codes;
}

CommunicatorOptions options(int rank, int world, int port,
                            int64_t timeoutMs = 20000) {
  CommunicatorOptions o;
  o.launch.rank = rank;
  o.launch.worldSize = world;
  o.launch.masterAddr = "127.0.0.1";
  o.launch.masterPort = port;
  o.timeoutMs = timeoutMs;
  return o;
}

/// Logs a failed status from a child and returns false.
bool report(int rank, const char *what, const Status &status) {
  std::fprintf(stderr, "rank %d: %s: %s\n", rank, what,
               status.toString().c_str());
  return false;
}

#define CHILD_CHECK(cond)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "rank %d: %s:%d: %s\n", rank, __FILE__, __LINE__,   \
                   #cond);                                                     \
      return false;                                                            \
    }                                                                          \
  } while (false)

} // namespace

TEST(Launch, NoLauncherIsOneProcess) {
  Environment env;
  clearLaunch(env);
  LaunchInfo info;
  bool found = true;
  ASSERT_TRUE(launchFromEnvironment(info, found).isOk());
  EXPECT_FALSE(found);
  EXPECT_EQ(info.rank, 0);
  EXPECT_EQ(info.worldSize, 1);
}

TEST(Launch, TorchrunVariables) {
  Environment env;
  clearLaunch(env);
  env.set("RANK", "3");
  env.set("WORLD_SIZE", "4");
  env.set("LOCAL_RANK", "1");
  env.set("LOCAL_WORLD_SIZE", "2");
  env.set("MASTER_ADDR", "node0.example");
  env.set("MASTER_PORT", "29600");
  LaunchInfo info;
  bool found = false;
  ASSERT_TRUE(launchFromEnvironment(info, found).isOk());
  EXPECT_TRUE(found);
  EXPECT_EQ(info.rank, 3);
  EXPECT_EQ(info.worldSize, 4);
  EXPECT_EQ(info.localRank, 1);
  EXPECT_EQ(info.localWorldSize, 2);
  EXPECT_EQ(info.masterAddr, "node0.example");
  EXPECT_EQ(info.masterPort, 29600);
  EXPECT_NE(info.source.find("torchrun"), std::string::npos);
}

TEST(Launch, SlurmAndOpenMpiVariables) {
  Environment env;
  clearLaunch(env);
  env.set("SLURM_PROCID", "5");
  env.set("SLURM_NTASKS", "8");
  env.set("SLURM_LOCALID", "1");
  env.set("SLURM_NTASKS_PER_NODE", "4(x2)");
  env.set("MASTER_ADDR", "10.0.0.1");
  LaunchInfo info;
  bool found = false;
  ASSERT_TRUE(launchFromEnvironment(info, found).isOk());
  EXPECT_EQ(info.rank, 5);
  EXPECT_EQ(info.worldSize, 8);
  EXPECT_EQ(info.localRank, 1);
  EXPECT_EQ(info.masterPort, 29500);
  EXPECT_NE(info.source.find("Slurm"), std::string::npos);

  clearLaunch(env);
  env.set("OMPI_COMM_WORLD_RANK", "0");
  env.set("OMPI_COMM_WORLD_SIZE", "2");
  env.set("MASTER_ADDR", "localhost");
  ASSERT_TRUE(launchFromEnvironment(info, found).isOk());
  EXPECT_EQ(info.worldSize, 2);
  EXPECT_NE(info.source.find("Open MPI"), std::string::npos);
}

TEST(Launch, BadVariablesAreNamed) {
  Environment env;
  clearLaunch(env);
  LaunchInfo info;
  bool found = false;
  env.set("RANK", "1");
  EXPECT_ERROR(launchFromEnvironment(info, found),
               "$WORLD_SIZE is not set, though $RANK is");
  env.set("WORLD_SIZE", "2");
  EXPECT_ERROR(launchFromEnvironment(info, found), "without $MASTER_ADDR");
  env.set("MASTER_ADDR", "127.0.0.1");
  env.set("RANK", "2");
  EXPECT_ERROR(launchFromEnvironment(info, found),
               "$RANK = 2 is not a rank of $WORLD_SIZE = 2 processes");
  env.set("RANK", "one");
  EXPECT_ERROR(launchFromEnvironment(info, found),
               "$RANK must be a whole number in [0, 1048575], got 'one'");
  env.set("RANK", "1");
  env.set("MASTER_PORT", "70000");
  EXPECT_ERROR(launchFromEnvironment(info, found),
               "$MASTER_PORT must be a whole number in [1, 65535], got "
               "'70000'");
}

TEST(TcpStore, SetGetAddAndTimeout) {
  int port = freePort();
  ASSERT_NE(port, 0);
  std::unique_ptr<Store> server, client;
  ASSERT_TRUE(connectTcpStore("127.0.0.1", port, true, 5000, server).isOk());
  ASSERT_TRUE(connectTcpStore("127.0.0.1", port, false, 5000, client).isOk());
  // A get waits for the set of another client.
  std::string value;
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_TRUE(server->set("k", std::string("v\0w", 3)).isOk());
  });
  ASSERT_TRUE(client->get("k", 5000, value).isOk());
  late.join();
  EXPECT_EQ(value, std::string("v\0w", 3));
  int64_t sum = 0;
  ASSERT_TRUE(client->add("n", 5, sum).isOk());
  ASSERT_TRUE(server->add("n", -2, sum).isOk());
  EXPECT_EQ(sum, 3);
  // A large value goes through whole.
  std::string big(3 << 20, 'x');
  big[12345] = 'y';
  ASSERT_TRUE(client->set("big", big).isOk());
  ASSERT_TRUE(server->get("big", 5000, value).isOk());
  EXPECT_EQ(value, big);
  auto start = std::chrono::steady_clock::now();
  EXPECT_ERROR(client->get("never", 300, value), "had no 'never' within 0.3 s");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  // After a timeout the connection is closed, and says so.
  EXPECT_ERROR(client->set("k", "v"), "closed after an earlier failure");
}

TEST(TcpStore, NoServerAndTakenPort) {
  int port = freePort();
  std::unique_ptr<Store> store;
  EXPECT_ERROR(connectTcpStore("127.0.0.1", port, false, 300, store),
               "cannot reach the rendezvous store at 127.0.0.1:");
  std::unique_ptr<Store> first, second;
  ASSERT_TRUE(connectTcpStore("127.0.0.1", port, true, 2000, first).isOk());
  EXPECT_ERROR(connectTcpStore("127.0.0.1", port, true, 2000, second),
               "rank 0 cannot serve the rendezvous store on 127.0.0.1:");
}

#ifdef NNC_HAVE_GLOO_GLUE

TEST(Gloo, CollectivesOverLoopback) {
  int port = freePort();
  constexpr int kWorld = 3;
  std::vector<int> codes = runRanks(kWorld, 60, [&](int rank) {
    std::unique_ptr<Communicator> comm;
    Status status = createGlooCommunicator(options(rank, kWorld, port), comm);
    if (!status.isOk())
      return report(rank, "create", status);
    CHILD_CHECK(comm->rank() == rank && comm->size() == kWorld);
    CHILD_CHECK(comm->backend().find("gloo") != std::string::npos);
    // Sum of f32 over a buffer larger than one segment.
    std::vector<float> values(1 << 20);
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = float(rank + 1) * float(i % 1000) * 0.5f;
    status = comm->allReduce(values.data(), values.size(), DType::F32,
                             ReduceOp::Sum);
    if (!status.isOk())
      return report(rank, "all-reduce", status);
    for (size_t i = 0; i < values.size(); ++i)
      CHILD_CHECK(values[i] == 6.0f * float(i % 1000) * 0.5f);
    // Max of i64, sum of f64 and f16.
    std::vector<int64_t> ints = {rank * 10, -rank, int64_t(1) << 40};
    CHILD_CHECK(
        comm->allReduce(ints.data(), ints.size(), DType::I64, ReduceOp::Max)
            .isOk());
    CHILD_CHECK(ints[0] == 20 && ints[1] == 0 && ints[2] == int64_t(1) << 40);
    double d = 0.25 * rank;
    CHILD_CHECK(comm->allReduce(&d, 1, DType::F64, ReduceOp::Sum).isOk());
    CHILD_CHECK(d == 0.75);
    uint16_t half = 0x3c00; // 1.0 in f16
    CHILD_CHECK(comm->allReduce(&half, 1, DType::F16, ReduceOp::Sum).isOk());
    CHILD_CHECK(half == 0x4200); // 3.0
    int32_t small = rank;
    CHILD_CHECK(comm->allReduce(&small, 1, DType::I32, ReduceOp::Min).isOk());
    CHILD_CHECK(small == 0);
    // Broadcast from rank 2, all-gather, barrier.
    char text[16] = {0};
    if (rank == 2)
      std::snprintf(text, sizeof(text), "from two");
    CHILD_CHECK(comm->broadcast(text, sizeof(text), 2).isOk());
    CHILD_CHECK(std::string(text) == "from two");
    int32_t mine = 100 + rank, all[kWorld] = {0};
    CHILD_CHECK(comm->allGather(&mine, all, sizeof(mine)).isOk());
    CHILD_CHECK(all[0] == 100 && all[1] == 101 && all[2] == 102);
    CHILD_CHECK(comm->barrier().isOk());
    CHILD_CHECK(comm->sequence() == 8);
    // Refused before anything is sent.
    Status bad = comm->broadcast(text, 1, 3);
    CHILD_CHECK(!bad.isOk() && contains(bad, "a broadcast from rank 3"));
    bad = comm->allReduce(text, 1, DType::BF16, ReduceOp::Sum);
    CHILD_CHECK(!bad.isOk() && contains(bad, "an all-reduce of bf16"));
    CHILD_CHECK(comm->sequence() == 8);
    return true;
  });
  EXPECT_EQ(codes, std::vector<int>(kWorld, 0));
}

// A split communicator is independent of its parent: each runs on its own
// thread, and the two threads issue their collectives in orders that differ
// between the ranks; a program's all-reduce (nnc_runtime_all_reduce) sums
// over the scope's communicator, copies outside any scope, and a failure is
// kept in the scope.
TEST(Gloo, SplitAndProgramScope) {
  int port = freePort();
  constexpr int kWorld = 2;
  std::vector<int> codes = runRanks(kWorld, 60, [&](int rank) {
    std::unique_ptr<Communicator> comm, program;
    Status status = createGlooCommunicator(options(rank, kWorld, port), comm);
    if (!status.isOk())
      return report(rank, "create", status);
    status = comm->split("program", program);
    if (!status.isOk())
      return report(rank, "split", status);
    CHILD_CHECK(program->rank() == rank && program->size() == kWorld);
    std::unique_ptr<Communicator> bad;
    CHILD_CHECK(!comm->split("a/b", bad).isOk());

    // Rank 0's worker reduces before the main thread does; rank 1's after.
    float buckets[64], stats[8];
    for (int i = 0; i < 64; ++i)
      buckets[i] = float(rank + i);
    for (int i = 0; i < 8; ++i)
      stats[i] = float(10 * rank + i);
    std::atomic<bool> workerOk{false};
    std::mutex mutex;
    std::condition_variable cv;
    bool mainDone = false;
    std::thread worker([&] {
      if (rank == 1) {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [&] { return mainDone; });
      }
      bool ok = true;
      for (int k = 0; k < 3 && ok; ++k)
        ok = comm->allReduce(buckets, 64, DType::F32, ReduceOp::Sum).isOk();
      workerOk = ok;
    });
    float copied[8];
    {
      CollectiveScope scope(program.get());
      nnc_runtime_all_reduce(stats, stats, 8, static_cast<int32_t>(DType::F32));
      float input[3] = {1.f, 2.f, float(rank)}, output[3] = {0, 0, 0};
      nnc_runtime_all_reduce(input, output, 3,
                             static_cast<int32_t>(DType::F32));
      CHILD_CHECK(scope.status().isOk());
      CHILD_CHECK(scope.calls() == 2);
      CHILD_CHECK(output[0] == 2.f && output[1] == 4.f && output[2] == 1.f);
      {
        // Outside the scope of a communicator: a world of one.
        CollectiveScope alone(nullptr);
        nnc_runtime_all_reduce(stats, copied, 8,
                               static_cast<int32_t>(DType::F32));
      }
      nnc_runtime_all_reduce(input, output, 3, 99);
      CHILD_CHECK(!scope.status().isOk());
      CHILD_CHECK(!CollectiveScope::currentFailure().isOk());
    }
    CHILD_CHECK(CollectiveScope::currentFailure().isOk());
    {
      std::lock_guard<std::mutex> lock(mutex);
      mainDone = true;
    }
    cv.notify_all();
    worker.join();
    CHILD_CHECK(workerOk);
    for (int i = 0; i < 8; ++i)
      CHILD_CHECK(stats[i] == float(10 + 2 * i) && copied[i] == stats[i]);
    for (int i = 0; i < 64; ++i)
      CHILD_CHECK(buckets[i] == float(4 * (1 + 2 * i)));
    CHILD_CHECK(program->sequence() == 2 && comm->sequence() == 3);
    return true;
  });
  EXPECT_EQ(codes, std::vector<int>(kWorld, 0));
}

// A rank killed mid-run: the other's next collective fails, naming itself,
// the collective and its number, well within the timeout; later calls are
// refused.
TEST(Gloo, DeadRankFailsTheOthers) {
  int port = freePort();
  std::vector<int> codes = runRanks(2, 60, [&](int rank) {
    std::unique_ptr<Communicator> comm;
    Status status = createGlooCommunicator(options(rank, 2, port, 10000), comm);
    if (!status.isOk())
      return report(rank, "create", status);
    float x = 1;
    CHILD_CHECK(comm->allReduce(&x, 1, DType::F32, ReduceOp::Sum).isOk());
    if (rank == 1)
      ::raise(SIGKILL);
    auto start = std::chrono::steady_clock::now();
    status = comm->allReduce(&x, 1, DType::F32, ReduceOp::Sum);
    auto took = std::chrono::steady_clock::now() - start;
    std::fprintf(stderr, "rank 0 after the kill: %s\n",
                 status.toString().c_str());
    CHILD_CHECK(!status.isOk());
    CHILD_CHECK(contains(status, "rank 0 of 2: all-reduce #2 failed"));
    CHILD_CHECK(took < std::chrono::seconds(12));
    Status later = comm->barrier();
    CHILD_CHECK(contains(later, "no barrier after an earlier collective "
                                "failed"));
    return true;
  });
  ASSERT_EQ(codes.size(), 2u);
  EXPECT_EQ(codes[0], 0);
  EXPECT_EQ(codes[1], 128 + SIGKILL);
}

// A rank that stops taking part without dying: the collective times out.
TEST(Gloo, StalledRankTimesOut) {
  int port = freePort();
  std::vector<int> codes = runRanks(2, 30, [&](int rank) {
    std::unique_ptr<Communicator> comm;
    Status status = createGlooCommunicator(options(rank, 2, port, 1000), comm);
    if (!status.isOk())
      return report(rank, "create", status);
    if (rank == 1) {
      ::sleep(4);
      return true;
    }
    auto start = std::chrono::steady_clock::now();
    int64_t v = 1;
    status = comm->allReduce(&v, 1, DType::I64, ReduceOp::Sum);
    auto took = std::chrono::steady_clock::now() - start;
    std::fprintf(stderr, "rank 0, peer stalled: %s\n",
                 status.toString().c_str());
    CHILD_CHECK(contains(status, "rank 0 of 2: all-reduce #1 failed after"));
    CHILD_CHECK(contains(status, "(timeout 1 s)"));
    CHILD_CHECK(took >= std::chrono::milliseconds(900));
    CHILD_CHECK(took < std::chrono::seconds(4));
    return true;
  });
  EXPECT_EQ(codes, std::vector<int>(2, 0));
}

// A rank that never comes is named; ranks that disagree on the world are
// refused.
TEST(Gloo, RendezvousNamesMissingRanks) {
  int port = freePort();
  std::vector<int> codes = runRanks(1, 30, [&](int rank) {
    std::unique_ptr<Communicator> comm;
    auto start = std::chrono::steady_clock::now();
    Status status = createGlooCommunicator(options(0, 3, port, 800), comm);
    std::fprintf(stderr, "alone: %s\n", status.toString().c_str());
    CHILD_CHECK(status.code() == StatusCode::Unavailable);
    CHILD_CHECK(contains(status, "rank 0 of 3: no word from ranks 1, 2 at the "
                                 "rendezvous store 127.0.0.1:"));
    CHILD_CHECK(std::chrono::steady_clock::now() - start <
                std::chrono::seconds(5));
    return true;
  });
  EXPECT_EQ(codes, std::vector<int>(1, 0));
  port = freePort();
  codes = runRanks(2, 30, [&](int rank) {
    std::unique_ptr<Communicator> comm;
    Status status = createGlooCommunicator(
        options(rank, rank == 0 ? 2 : 3, port, 3000), comm);
    std::fprintf(stderr, "rank %d, worlds differ: %s\n", rank,
                 status.toString().c_str());
    CHILD_CHECK(!status.isOk());
    if (rank == 0)
      CHILD_CHECK(contains(status, "was launched with a world of 3 "
                                   "processes, rank 0 with 2"));
    return true;
  });
  EXPECT_EQ(codes, std::vector<int>(2, 0));
}

#endif // NNC_HAVE_GLOO_GLUE

// Without the glue: a clear Unimplemented naming it (in a child, since the
// library is looked for once per process).
TEST(Gloo, MissingGlueIsNamed) {
  std::vector<int> codes = runRanks(1, 30, [&](int rank) {
    ::setenv("NNC_GLOO_GLUE", "/nonexistent/libnnc_gloo.so", 1);
    std::unique_ptr<Communicator> comm;
    Status status = createGlooCommunicator(options(0, 1, freePort()), comm);
    std::fprintf(stderr, "no glue: %s\n", status.toString().c_str());
    CHILD_CHECK(status.code() == StatusCode::Unimplemented);
    CHILD_CHECK(contains(status, "nnc's Gloo glue"));
    CHILD_CHECK(contains(status, "/nonexistent/libnnc_gloo.so"));
    return true;
  });
  EXPECT_EQ(codes, std::vector<int>(1, 0));
}

// NCCL: without the library, Unimplemented naming it; with it but without a
// CUDA driver (this machine's case, and any without a GPU), Unavailable
// naming the driver. Each in a child: both libraries are looked for once per
// process.
TEST(Nccl, MissingLibraryIsNamed) {
  std::vector<int> codes = runRanks(1, 30, [&](int rank) {
    ::setenv("NNC_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1);
    std::unique_ptr<Communicator> comm;
    Status status = createNcclCommunicator(options(0, 1, freePort()), 0, comm);
    std::fprintf(stderr, "no NCCL: %s\n", status.toString().c_str());
    CHILD_CHECK(status.code() == StatusCode::Unimplemented);
    CHILD_CHECK(contains(status, "NCCL"));
    CHILD_CHECK(contains(status, "/nonexistent/libnccl.so.2"));
    return true;
  });
  EXPECT_EQ(codes, std::vector<int>(1, 0));
}

TEST(Nccl, NoCudaDriverIsNamed) {
  std::vector<int> codes = runRanks(1, 30, [&](int rank) {
    ::setenv("NNC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    std::unique_ptr<Communicator> comm;
    Status status = createNcclCommunicator(options(0, 1, freePort()), 0, comm);
    std::fprintf(stderr, "no driver: %s\n", status.toString().c_str());
    CHILD_CHECK(!status.isOk());
    // Where NCCL itself is missing, that is said first.
    if (status.code() != StatusCode::Unimplemented) {
      CHILD_CHECK(status.code() == StatusCode::Unavailable);
      CHILD_CHECK(contains(status, "NCCL needs a CUDA device"));
      CHILD_CHECK(contains(status, "/nonexistent/libcuda.so.1"));
    }
    return true;
  });
  EXPECT_EQ(codes, std::vector<int>(1, 0));
}

// On a machine with a GPU (and NCCL): a world of one on device 0 reduces,
// broadcasts, gathers and meets in a barrier on device memory; elsewhere
// skipped, saying why.
TEST(Nccl, WorldOfOneOnDeviceZero) {
  CudaDriver driver;
  int count = 0;
  if (!CudaDriver::load(driver).isOk() || driver.cuInit(0) != 0 ||
      driver.cuDeviceGetCount(&count) != 0 || count == 0)
    GTEST_SKIP() << "no CUDA device here";
  std::unique_ptr<Communicator> comm;
  Status status = createNcclCommunicator(options(0, 1, freePort()), 0, comm);
  if (status.code() == StatusCode::Unimplemented)
    GTEST_SKIP() << status.message();
  ASSERT_TRUE(status.isOk()) << status.toString();
  EXPECT_NE(comm->backend().find("nccl"), std::string::npos);
  int device = 0;
  void *context = nullptr;
  ASSERT_EQ(driver.cuDeviceGet(&device, 0), 0);
  ASSERT_EQ(driver.cuDevicePrimaryCtxRetain(&context, device), 0);
  ASSERT_EQ(driver.cuCtxSetCurrent(context), 0);
  unsigned long long buffer = 0, gathered = 0;
  ASSERT_EQ(driver.cuMemAlloc_v2(&buffer, 3 * sizeof(float)), 0);
  ASSERT_EQ(driver.cuMemAlloc_v2(&gathered, 3 * sizeof(float)), 0);
  const float values[3] = {1.5f, -2.f, 4.f};
  ASSERT_EQ(driver.cuMemcpyHtoD_v2(buffer, values, sizeof values), 0);
  auto *data = reinterpret_cast<void *>(buffer);
  EXPECT_TRUE(comm->allReduce(data, 3, DType::F32, ReduceOp::Sum).isOk());
  EXPECT_TRUE(comm->broadcast(data, sizeof values, 0).isOk());
  EXPECT_TRUE(
      comm->allGather(data, reinterpret_cast<void *>(gathered), sizeof values)
          .isOk());
  EXPECT_TRUE(comm->barrier().isOk());
  float back[3] = {0, 0, 0};
  ASSERT_EQ(driver.cuMemcpyDtoH_v2(back, gathered, sizeof back), 0);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(back[i], values[i]) << i;
  EXPECT_EQ(comm->sequence(), 4u);
  comm.reset();
  driver.cuMemFree_v2(buffer);
  driver.cuMemFree_v2(gathered);
  driver.cuDevicePrimaryCtxRelease_v2(device);
}
