//===- Launch.cpp - nnc-run train --nproc N: local ranks ------------------===//
//
// Starts N copies of this nnc-run as the ranks of one data-parallel run on
// this machine, with torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT), and waits for them. The first
// rank to fail decides the exit status; the others get a grace period to
// report their own error (a collective that names the lost rank) and are
// then terminated. SIGINT and SIGTERM are passed on to the ranks.
//
//===----------------------------------------------------------------------===//

#include "Launch.h"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

volatile sig_atomic_t forwardedSignal = 0;

void onSignal(int signal) { forwardedSignal = signal; }

/// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's pick);
/// 0 when none could be had.
int freePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) == 0)
    port = ntohs(address.sin_port);
  close(fd);
  return port;
}

std::string describe(int status) {
  if (WIFEXITED(status))
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string("was killed by signal ") +
           std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "stopped";
}

} // namespace

int nnc::tools::launchLocalRanks(int nproc, int masterPort, double graceSeconds,
                                 const std::vector<std::string> &arguments) {
  if (masterPort == 0)
    masterPort = freePort();
  if (masterPort == 0) {
    std::fprintf(stderr, "nnc-run: error: --nproc: no free TCP port on "
                         "127.0.0.1 for the rendezvous; give --master-port\n");
    return 1;
  }
  std::vector<pid_t> ranks(static_cast<size_t>(nproc), -1);
  struct sigaction action {
  }, oldInt{}, oldTerm{};
  action.sa_handler = onSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &oldInt);
  sigaction(SIGTERM, &action, &oldTerm);
  auto terminateAll = [&](int signal) {
    for (pid_t pid : ranks)
      if (pid > 0)
        kill(pid, signal);
  };
  for (int r = 0; r < nproc; ++r) {
    pid_t pid = fork();
    if (pid < 0) {
      std::fprintf(stderr,
                   "nnc-run: error: --nproc: cannot start rank %d: %s\n", r,
                   std::strerror(errno));
      terminateAll(SIGTERM);
      for (pid_t p : ranks)
        if (p > 0)
          waitpid(p, nullptr, 0);
      return 1;
    }
    if (pid == 0) {
      sigaction(SIGINT, &oldInt, nullptr);
      sigaction(SIGTERM, &oldTerm, nullptr);
      setenv("RANK", std::to_string(r).c_str(), 1);
      setenv("WORLD_SIZE", std::to_string(nproc).c_str(), 1);
      setenv("LOCAL_RANK", std::to_string(r).c_str(), 1);
      setenv("LOCAL_WORLD_SIZE", std::to_string(nproc).c_str(), 1);
      setenv("MASTER_ADDR", "127.0.0.1", 1);
      setenv("MASTER_PORT", std::to_string(masterPort).c_str(), 1);
      std::vector<char *> argv;
      for (const std::string &a : arguments)
        argv.push_back(const_cast<char *>(a.c_str()));
      argv.push_back(nullptr);
      execv("/proc/self/exe", argv.data());
      std::fprintf(stderr, "nnc-run: error: --nproc: cannot run rank %d: %s\n",
                   r, std::strerror(errno));
      _exit(127);
    }
    ranks[static_cast<size_t>(r)] = pid;
  }

  // Waits for every rank; the first failure decides the status.
  int result = 0, running = nproc, firstFailed = -1;
  bool terminated = false;
  auto failedAt = std::chrono::steady_clock::now();
  while (running > 0) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid < 0 && errno != EINTR)
      break;
    if (pid > 0) {
      int r = 0;
      while (r < nproc && ranks[static_cast<size_t>(r)] != pid)
        ++r;
      if (r == nproc)
        continue;
      ranks[static_cast<size_t>(r)] = -1;
      --running;
      bool failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
      if (failed && firstFailed < 0) {
        firstFailed = r;
        result =
            WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        failedAt = std::chrono::steady_clock::now();
        if (!terminated)
          std::fprintf(stderr, "nnc-run: rank %d of %d %s\n", r, nproc,
                       describe(status).c_str());
      }
      continue;
    }
    if (forwardedSignal && !terminated) {
      terminateAll(forwardedSignal);
      terminated = true;
      if (firstFailed < 0)
        result = 128 + forwardedSignal;
    }
    if (firstFailed >= 0 && !terminated &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                      failedAt)
                .count() > graceSeconds) {
      std::fprintf(stderr,
                   "nnc-run: stopping the %d rank(s) still running %.0f s "
                   "after rank %d failed\n",
                   running, graceSeconds, firstFailed);
      terminateAll(SIGTERM);
      terminated = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  sigaction(SIGINT, &oldInt, nullptr);
  sigaction(SIGTERM, &oldTerm, nullptr);
  return result;
}
