//===- Collectives.cpp - launch, the TCP store, the Gloo communicator -----===//

#include "nnc/runtime/Collectives.h"

#include "CollectivesInternal.h"
#include "nnc/runtime/DynamicLibrary.h"
#include "nnc/runtime/GlooGlue.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace nnc::runtime {

std::string collectives::secondsText(int64_t ms) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g s", ms / 1000.0);
  return text;
}

using collectives::secondsText;

Status collectives::checkOptions(const CommunicatorOptions &options) {
  const LaunchInfo &launch = options.launch;
  if (launch.worldSize < 1 || launch.rank < 0 ||
      launch.rank >= launch.worldSize)
    return Status(StatusCode::InvalidArgument,
                  "rank " + std::to_string(launch.rank) + " of a world of " +
                      std::to_string(launch.worldSize));
  if (options.timeoutMs <= 0)
    return Status(StatusCode::InvalidArgument,
                  "a collective timeout of " +
                      std::to_string(options.timeoutMs) + " ms");
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Launch
//===----------------------------------------------------------------------===//

namespace {

/// The integer in $`name`; false when unset. `bad` is set for a value that
/// is not a whole number in [low, high].
bool readInt(const char *name, int low, int high, int &out, Status &bad) {
  const char *text = std::getenv(name);
  if (!text)
    return false;
  char *end = nullptr;
  errno = 0;
  long value = std::strtol(text, &end, 10);
  if (!*text || *end || errno || value < low || value > high) {
    if (bad.isOk())
      bad = Status(StatusCode::InvalidArgument,
                   std::string("$") + name + " must be a whole number in [" +
                       std::to_string(low) + ", " + std::to_string(high) +
                       "], got '" + text + "'");
    return true;
  }
  out = static_cast<int>(value);
  return true;
}

struct Launcher {
  const char *name, *rank, *size, *localRank, *localSize;
};

constexpr Launcher kLaunchers[] = {
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"},
    {"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID",
     "SLURM_NTASKS_PER_NODE"},
    {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
     "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
};

bool isLoopback(const std::string &host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

} // namespace

Status launchFromEnvironment(LaunchInfo &out, bool &found) {
  out = LaunchInfo();
  found = false;
  Status bad;
  constexpr int kMaxRanks = 1 << 20;
  for (const Launcher &launcher : kLaunchers) {
    if (!std::getenv(launcher.rank) && !std::getenv(launcher.size))
      continue;
    if (!std::getenv(launcher.rank) || !std::getenv(launcher.size))
      return Status(
          StatusCode::InvalidArgument,
          std::string(launcher.name) + " launch: $" +
              (std::getenv(launcher.rank) ? launcher.size : launcher.rank) +
              " is not set, though $" +
              (std::getenv(launcher.rank) ? launcher.rank : launcher.size) +
              " is");
    found = true;
    readInt(launcher.size, 1, kMaxRanks, out.worldSize, bad);
    readInt(launcher.rank, 0, kMaxRanks - 1, out.rank, bad);
    out.localRank = out.rank;
    out.localWorldSize = out.worldSize;
    readInt(launcher.localRank, 0, kMaxRanks - 1, out.localRank, bad);
    // Slurm's tasks per node may read "2(x3)"; only a plain count is used.
    Status ignored;
    readInt(launcher.localSize, 1, kMaxRanks, out.localWorldSize,
            &launcher == &kLaunchers[1] ? ignored : bad);
    out.source = std::string(launcher.name) + " ($" + launcher.rank + ", $" +
                 launcher.size + ")";
    if (!bad.isOk())
      return bad;
    if (out.rank >= out.worldSize)
      return Status(StatusCode::InvalidArgument,
                    std::string("$") + launcher.rank + " = " +
                        std::to_string(out.rank) + " is not a rank of $" +
                        launcher.size + " = " + std::to_string(out.worldSize) +
                        " processes");
    break;
  }
  if (const char *addr = std::getenv("MASTER_ADDR"); addr && *addr)
    out.masterAddr = addr;
  else if (found && out.worldSize > 1)
    return Status(StatusCode::InvalidArgument,
                  out.source + " launch of " + std::to_string(out.worldSize) +
                      " processes without $MASTER_ADDR: set it to the host "
                      "of rank 0, where the rendezvous store is served");
  readInt("MASTER_PORT", 1, 65535, out.masterPort, bad);
  return bad;
}

//===----------------------------------------------------------------------===//
// The TCP store
//===----------------------------------------------------------------------===//

namespace {

using Clock = std::chrono::steady_clock;

// Requests: op (1 byte), key length (4 bytes), key, value length (8 bytes),
// value, the integers little-endian. Replies: the value length (8 bytes) and
// the value (get: the key's bytes; add: the sum, 8 bytes; set: nothing).
enum Op : uint8_t { kSet = 1, kGet = 2, kAdd = 3 };

void putInt(std::string &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t getInt(const char *in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= uint64_t(static_cast<unsigned char>(in[i])) << (8 * i);
  return value;
}

std::string errnoText() { return std::strerror(errno); }

/// Writes all of `data`; false on a closed or failed socket.
bool sendAll(int fd, const std::string &data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n =
        ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

/// Resolves `host`:`port` for a TCP socket (IPv4 or IPv6).
Status resolve(const std::string &host, int port, bool passive,
               addrinfo **out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  std::string service = std::to_string(port);
  int rc = ::getaddrinfo(passive ? nullptr : host.c_str(), service.c_str(),
                         &hints, out);
  if (rc != 0)
    return Status(StatusCode::InvalidArgument,
                  "cannot resolve the rendezvous store's host '" + host +
                      "': " + ::gai_strerror(rc));
  return Status::ok();
}

/// Rank 0's server: one thread polling the listening socket and the
/// clients, answering a get when its key is set.
class StoreServer {
public:
  ~StoreServer() {
    if (thread_.joinable()) {
      char byte = 0;
      (void)!::write(wake_[1], &byte, 1);
      thread_.join();
    }
    for (auto &[fd, client] : clients_)
      ::close(fd);
    for (int fd : {listen_, wake_[0], wake_[1]})
      if (fd >= 0)
        ::close(fd);
  }

  Status start(const std::string &host, int port) {
    if (::pipe(wake_) != 0)
      return Status(StatusCode::Internal, "pipe: " + errnoText());
    // A loopback store is reachable from this host only; any other is
    // served on every interface, as the other hosts' ranks must reach it.
    addrinfo *found = nullptr;
    NNC_RUNTIME_RETURN_IF_ERROR(
        resolve(host, port, /*passive=*/!isLoopback(host), &found));
    std::string why = "no address";
    for (addrinfo *a = found; a; a = a->ai_next) {
      int fd =
          ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) {
        why = errnoText();
        continue;
      }
      int one = 1;
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
      if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 &&
          ::listen(fd, 128) == 0) {
        listen_ = fd;
        break;
      }
      why = errnoText();
      ::close(fd);
    }
    ::freeaddrinfo(found);
    if (listen_ < 0)
      return Status(StatusCode::Unavailable,
                    "rank 0 cannot serve the rendezvous store on " + host +
                        ":" + std::to_string(port) + ": " + why +
                        " (another run on that port? set $MASTER_PORT)");
    thread_ = std::thread([this] { loop(); });
    return Status::ok();
  }

private:
  struct Client {
    std::string in;
  };

  void loop() {
    for (;;) {
      std::vector<pollfd> fds = {{wake_[0], POLLIN, 0}, {listen_, POLLIN, 0}};
      for (auto &[fd, client] : clients_)
        fds.push_back({fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR)
          continue;
        return;
      }
      if (fds[0].revents)
        return;
      if (fds[1].revents & POLLIN) {
        int fd = ::accept4(listen_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) {
          int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
          clients_[fd];
        }
      }
      for (size_t i = 2; i < fds.size(); ++i) {
        if (!fds[i].revents)
          continue;
        int fd = fds[i].fd;
        char buffer[65536];
        ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
        if (n < 0 && errno == EINTR)
          continue;
        if (n <= 0) {
          drop(fd);
          continue;
        }
        clients_[fd].in.append(buffer, static_cast<size_t>(n));
        if (!serve(fd))
          drop(fd);
      }
    }
  }

  void drop(int fd) {
    ::close(fd);
    clients_.erase(fd);
    for (auto &[key, waiting] : waiters_)
      waiting.erase(std::remove(waiting.begin(), waiting.end(), fd),
                    waiting.end());
  }

  static std::string reply(const std::string &value) {
    std::string out;
    putInt(out, value.size(), 8);
    return out + value;
  }

  /// Answers every whole request `fd` has sent; false to drop it.
  bool serve(int fd) {
    std::string &in = clients_[fd].in;
    for (;;) {
      if (in.size() < 5)
        return true;
      uint64_t keySize = getInt(in.data() + 1, 4);
      if (keySize > (1u << 20))
        return false;
      if (in.size() < 5 + keySize + 8)
        return true;
      uint64_t valueSize = getInt(in.data() + 5 + keySize, 8);
      if (valueSize > (uint64_t(1) << 32))
        return false;
      size_t whole = 5 + keySize + 8 + valueSize;
      if (in.size() < whole)
        return true;
      uint8_t op = static_cast<uint8_t>(in[0]);
      std::string key = in.substr(5, keySize);
      std::string value = in.substr(5 + keySize + 8, valueSize);
      in.erase(0, whole);
      switch (op) {
      case kSet: {
        values_[key] = value;
        if (!sendAll(fd, reply("")))
          return false;
        auto waiting = waiters_.find(key);
        if (waiting != waiters_.end()) {
          for (int other : waiting->second)
            (void)sendAll(other, reply(value));
          waiters_.erase(waiting);
        }
        break;
      }
      case kGet: {
        auto it = values_.find(key);
        if (it == values_.end())
          waiters_[key].push_back(fd);
        else if (!sendAll(fd, reply(it->second)))
          return false;
        break;
      }
      case kAdd: {
        if (value.size() != 8)
          return false;
        std::string &stored = values_[key];
        int64_t sum =
            (stored.size() == 8 ? static_cast<int64_t>(getInt(stored.data(), 8))
                                : 0) +
            static_cast<int64_t>(getInt(value.data(), 8));
        stored.clear();
        putInt(stored, static_cast<uint64_t>(sum), 8);
        if (!sendAll(fd, reply(stored)))
          return false;
        break;
      }
      default:
        return false;
      }
    }
  }

  int listen_ = -1;
  int wake_[2] = {-1, -1};
  std::thread thread_;
  std::map<int, Client> clients_;
  std::map<std::string, std::string> values_;
  std::map<std::string, std::vector<int>> waiters_;
};

class TcpStore : public Store {
public:
  ~TcpStore() override {
    if (fd_ >= 0)
      ::close(fd_);
  }

  Status connect(const std::string &host, int port, int64_t timeoutMs) {
    where_ = host + ":" + std::to_string(port);
    auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
    std::string why;
    do {
      addrinfo *found = nullptr;
      NNC_RUNTIME_RETURN_IF_ERROR(resolve(host, port, false, &found));
      for (addrinfo *a = found; a && fd_ < 0; a = a->ai_next) {
        int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC,
                          a->ai_protocol);
        if (fd < 0) {
          why = errnoText();
          continue;
        }
        if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
          int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
          fd_ = fd;
        } else {
          why = errnoText();
          ::close(fd);
        }
      }
      ::freeaddrinfo(found);
      if (fd_ >= 0)
        return Status::ok();
      // Rank 0 may not serve it yet.
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    } while (Clock::now() < deadline);
    return Status(StatusCode::Unavailable,
                  "cannot reach the rendezvous store at " + where_ +
                      " within " + secondsText(timeoutMs) + ": " + why +
                      " (is rank 0 running there?)");
  }

  Status set(const std::string &key, const std::string &value) override {
    std::string ignored;
    return request(kSet, key, value, -1, ignored);
  }

  Status get(const std::string &key, int64_t timeoutMs,
             std::string &value) override {
    return request(kGet, key, "", timeoutMs, value);
  }

  Status add(const std::string &key, int64_t delta, int64_t &result) override {
    std::string operand, reply;
    putInt(operand, static_cast<uint64_t>(delta), 8);
    NNC_RUNTIME_RETURN_IF_ERROR(request(kAdd, key, operand, -1, reply));
    if (reply.size() != 8)
      return Status(StatusCode::DataLoss, "the rendezvous store at " + where_ +
                                              " answered an add with " +
                                              std::to_string(reply.size()) +
                                              " bytes");
    result = static_cast<int64_t>(getInt(reply.data(), 8));
    return Status::ok();
  }

  std::unique_ptr<StoreServer> server;

private:
  /// Sends one request and reads its reply within `timeoutMs` (negative:
  /// the store's own default of 5 minutes; a reply to a set or an add is
  /// immediate). A late reply would leave the stream out of step, so a
  /// timeout breaks the connection.
  Status request(Op op, const std::string &key, const std::string &value,
                 int64_t timeoutMs, std::string &out) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fd_ < 0)
      return Status(StatusCode::Unavailable,
                    "the connection to the rendezvous store at " + where_ +
                        " is closed after an earlier failure");
    std::string message(1, static_cast<char>(op));
    putInt(message, key.size(), 4);
    message += key;
    putInt(message, value.size(), 8);
    message += value;
    auto fail = [&](StatusCode code, const std::string &what) {
      ::close(fd_);
      fd_ = -1;
      return Status(code, what);
    };
    if (!sendAll(fd_, message))
      return fail(StatusCode::Unavailable, "the rendezvous store at " + where_ +
                                               " is gone (" + errnoText() +
                                               ")");
    if (timeoutMs < 0)
      timeoutMs = 300000;
    auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
    std::string in;
    for (;;) {
      if (in.size() >= 8 && in.size() >= 8 + getInt(in.data(), 8)) {
        out = in.substr(8);
        return Status::ok();
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - Clock::now())
                      .count();
      if (left <= 0)
        return fail(StatusCode::Unavailable,
                    "the rendezvous store at " + where_ + " had no '" + key +
                        "' within " + secondsText(timeoutMs));
      pollfd p{fd_, POLLIN, 0};
      int ready =
          ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
      if (ready < 0 && errno != EINTR)
        return fail(StatusCode::Unavailable, "poll: " + errnoText());
      if (ready <= 0)
        continue;
      char buffer[65536];
      ssize_t n = ::recv(fd_, buffer, sizeof(buffer), 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return fail(StatusCode::Unavailable,
                    "the rendezvous store at " + where_ +
                        " closed the connection (rank 0 gone?)");
      in.append(buffer, static_cast<size_t>(n));
    }
  }

  int fd_ = -1;
  std::string where_;
  std::mutex mutex_;
};

} // namespace

Status connectTcpStore(const std::string &host, int port, bool serve,
                       int64_t timeoutMs, std::unique_ptr<Store> &out) {
  auto store = std::make_unique<TcpStore>();
  if (serve) {
    store->server = std::make_unique<StoreServer>();
    NNC_RUNTIME_RETURN_IF_ERROR(store->server->start(host, port));
  }
  NNC_RUNTIME_RETURN_IF_ERROR(store->connect(
      serve && !isLoopback(host) ? "127.0.0.1" : host, port, timeoutMs));
  out = std::move(store);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Communicator
//===----------------------------------------------------------------------===//

namespace {

const char *kindName(int kind) {
  static const char *names[] = {"all-reduce", "broadcast", "all-gather",
                                "barrier"};
  return names[kind];
}

} // namespace

Status Communicator::allReduce(void *data, size_t count, DType dtype,
                               ReduceOp op) {
  Call call{Kind::AllReduce};
  call.data = data;
  call.count = count;
  call.dtype = dtype;
  call.op = op;
  switch (dtype) {
  case DType::F32:
  case DType::F64:
  case DType::F16:
  case DType::I32:
  case DType::I64:
  case DType::U8:
    break;
  default:
    return Status(StatusCode::InvalidArgument,
                  std::string("an all-reduce of ") + dtypeName(dtype) +
                      " values (f32, f64, f16, i32, i64 and u8 reduce)");
  }
  return issue(call, "all-reduce");
}

Status Communicator::broadcast(void *data, size_t bytes, int root) {
  if (root < 0 || root >= size_)
    return Status(StatusCode::InvalidArgument,
                  "a broadcast from rank " + std::to_string(root) +
                      ", not one of the " + std::to_string(size_));
  Call call{Kind::Broadcast};
  call.data = data;
  call.count = bytes;
  call.root = root;
  return issue(call, "broadcast");
}

Status Communicator::allGather(const void *input, void *output, size_t bytes) {
  Call call{Kind::AllGather};
  call.input = input;
  call.data = output;
  call.count = bytes;
  return issue(call, "all-gather");
}

Status Communicator::barrier() { return issue(Call{Kind::Barrier}, "barrier"); }

Status Communicator::issue(Call call, const char *what) {
  if (!broken_.isOk())
    return Status(broken_.code(), "rank " + std::to_string(rank_) + ": no " +
                                      what +
                                      " after an earlier collective failed (" +
                                      broken_.message() + ")");
  if (call.count && !call.data)
    return Status(StatusCode::InvalidArgument,
                  std::string("a ") + what + " of " +
                      std::to_string(call.count) + " on a null buffer");
  uint64_t number = ++sequence_;
  // Every rank issues the same collectives in the same order, so the
  // number is the same everywhere; as the tag it keeps two collectives'
  // messages apart.
  call.tag = static_cast<uint32_t>(number);
  auto start = Clock::now();
  Status status = run(call);
  if (status.isOk())
    return status;
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  char elapsed[32];
  std::snprintf(elapsed, sizeof(elapsed), "%.1f", seconds);
  broken_ = Status(
      status.code(),
      "rank " + std::to_string(rank_) + " of " + std::to_string(size_) + ": " +
          kindName(static_cast<int>(call.kind)) + " #" +
          std::to_string(number) + " failed after " + elapsed + " s (timeout " +
          secondsText(timeoutMs_) + "): " + status.message());
  return broken_;
}

Status Communicator::split(const std::string &name,
                           std::unique_ptr<Communicator> &) {
  return Status(StatusCode::Unimplemented,
                "the " + backend() + " communicator cannot split off '" + name +
                    "'");
}

//===----------------------------------------------------------------------===//
// Collectives of compiled programs
//===----------------------------------------------------------------------===//

namespace {
thread_local CollectiveScope *currentScope = nullptr;
} // namespace

struct CollectiveScopeAccess {
  static void allReduce(const void *input, void *output, int64_t count,
                        int32_t dtype) {
    CollectiveScope *scope = currentScope;
    bool known = dtype >= 0 && dtype < static_cast<int32_t>(kNumDTypes);
    if (count > 0 && known && input != output)
      std::memmove(output, input,
                   static_cast<size_t>(count) *
                       dtypeSize(static_cast<DType>(dtype)));
    if (!scope)
      return;
    ++scope->calls_;
    if (!scope->status_.isOk())
      return;
    if (count < 0 || !known) {
      scope->status_ =
          Status(StatusCode::InvalidArgument,
                 "a program's all-reduce of " + std::to_string(count) +
                     " elements of dtype " + std::to_string(dtype));
      return;
    }
    scope->bytes_ += static_cast<uint64_t>(count) *
                     dtypeSize(static_cast<DType>(dtype));
    if (!scope->communicator_ || count == 0)
      return;
    scope->status_ = scope->communicator_->allReduce(
        output, static_cast<size_t>(count), static_cast<DType>(dtype),
        ReduceOp::Sum);
  }
};

CollectiveScope::CollectiveScope(Communicator *communicator)
    : communicator_(communicator), outer_(currentScope) {
  currentScope = this;
}

CollectiveScope::~CollectiveScope() { currentScope = outer_; }

Status CollectiveScope::currentFailure() {
  return currentScope ? currentScope->status_ : Status::ok();
}

//===----------------------------------------------------------------------===//
// Gloo
//===----------------------------------------------------------------------===//

namespace {

struct GlooLibrary {
  Status status;
  std::string path, version;
  gloo_glue::CreateFn create = nullptr;
  gloo_glue::AllReduceFn allReduce = nullptr;
  gloo_glue::BroadcastFn broadcast = nullptr;
  gloo_glue::AllGatherFn allGather = nullptr;
  gloo_glue::BarrierFn barrier = nullptr;
  gloo_glue::DestroyFn destroy = nullptr;
};

const GlooLibrary &glooLibrary() {
  static const GlooLibrary *loaded = [] {
    auto *glue = new GlooLibrary;
    std::vector<std::string> candidates;
    if (const char *path = std::getenv("NNC_GLOO_GLUE")) {
      candidates.push_back(path);
    } else {
      std::string dir = runtimeLibraryDirectory();
      if (!dir.empty())
        candidates.push_back(dir + "libnnc_gloo.so");
      candidates.push_back("libnnc_gloo.so");
    }
    static DynamicLibrary library;
    glue->status = DynamicLibrary::open(
        candidates,
        "nnc's Gloo glue, which data-parallel training on CPUs uses (it "
        "needs libgloo.so.0: install libgloo0, and libgloo-dev to build it; "
        "or set NNC_GLOO_GLUE)",
        library);
    auto need = [&](const char *symbol) {
      void *fn = nullptr;
      if (glue->status.isOk())
        glue->status = library.lookup(symbol, &fn);
      return fn;
    };
    glue->create =
        reinterpret_cast<gloo_glue::CreateFn>(need(gloo_glue::kCreateSymbol));
    glue->allReduce = reinterpret_cast<gloo_glue::AllReduceFn>(
        need(gloo_glue::kAllReduceSymbol));
    glue->broadcast = reinterpret_cast<gloo_glue::BroadcastFn>(
        need(gloo_glue::kBroadcastSymbol));
    glue->allGather = reinterpret_cast<gloo_glue::AllGatherFn>(
        need(gloo_glue::kAllGatherSymbol));
    glue->barrier =
        reinterpret_cast<gloo_glue::BarrierFn>(need(gloo_glue::kBarrierSymbol));
    glue->destroy =
        reinterpret_cast<gloo_glue::DestroyFn>(need(gloo_glue::kDestroySymbol));
    auto version =
        reinterpret_cast<gloo_glue::VersionFn>(need(gloo_glue::kVersionSymbol));
    if (glue->status.isOk()) {
      glue->path = library.path();
      glue->version = version();
    } else {
      glue->status = Status(StatusCode::Unimplemented, glue->status.message());
    }
    return glue;
  }();
  return *loaded;
}

int32_t glueType(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return gloo_glue::kF64;
  case DType::I32:
    return gloo_glue::kI32;
  case DType::I64:
    return gloo_glue::kI64;
  case DType::F16:
    return gloo_glue::kF16;
  case DType::U8:
    return gloo_glue::kU8;
  default:
    return gloo_glue::kF32;
  }
}

/// The store's callbacks for the glue.
int storeSet(void *self, const char *key, const void *data, size_t size,
             char *error, size_t errorSize) {
  Status status = static_cast<Store *>(self)->set(
      key, std::string(static_cast<const char *>(data), size));
  if (!status.isOk())
    std::snprintf(error, errorSize, "%s", status.message().c_str());
  return status.isOk() ? 0 : 1;
}

int storeGet(void *self, const char *key, int64_t timeoutMs,
             void (*receive)(void *, const void *, size_t), void *receiver,
             char *error, size_t errorSize) {
  std::string value;
  Status status = static_cast<Store *>(self)->get(key, timeoutMs, value);
  if (!status.isOk()) {
    std::snprintf(error, errorSize, "%s", status.message().c_str());
    return 1;
  }
  receive(receiver, value.data(), value.size());
  return 0;
}

/// Keys of `base` under "<prefix>/": a second rendezvous on the same store.
class PrefixStore : public Store {
public:
  PrefixStore(std::shared_ptr<Store> base, std::string prefix)
      : base_(std::move(base)), prefix_(std::move(prefix)) {}
  Status set(const std::string &key, const std::string &value) override {
    return base_->set(prefix_ + "/" + key, value);
  }
  Status get(const std::string &key, int64_t timeoutMs,
             std::string &value) override {
    return base_->get(prefix_ + "/" + key, timeoutMs, value);
  }
  Status add(const std::string &key, int64_t delta, int64_t &result) override {
    return base_->add(prefix_ + "/" + key, delta, result);
  }

private:
  std::shared_ptr<Store> base_;
  std::string prefix_;
};

/// Where a Gloo communicator connects from, kept for split().
struct GlooEndpoint {
  LaunchInfo launch;
  std::string host, iface;
  int64_t timeoutMs = 0;
};

Status connectGloo(const GlooLibrary &glue, const GlooEndpoint &endpoint,
                   std::shared_ptr<Store> store, const std::string &prefix,
                   std::unique_ptr<Communicator> &out);

class GlooCommunicator : public Communicator {
public:
  GlooCommunicator(const GlooEndpoint &endpoint, const GlooLibrary &glue,
                   std::shared_ptr<Store> store, std::string prefix,
                   void *context)
      : Communicator(endpoint.launch.rank, endpoint.launch.worldSize,
                     endpoint.timeoutMs),
        endpoint_(endpoint), glue_(glue), store_(std::move(store)),
        prefix_(std::move(prefix)), context_(context) {}

  ~GlooCommunicator() override { glue_.destroy(context_); }

  std::string backend() const override {
    return glue_.version + " over TCP (" +
           (endpoint_.iface.empty() ? endpoint_.host
                                    : "interface " + endpoint_.iface) +
           ")";
  }

  Status split(const std::string &name,
               std::unique_ptr<Communicator> &out) override {
    if (name.empty() || name.find('/') != std::string::npos)
      return Status(StatusCode::InvalidArgument,
                    "a communicator split off as '" + name + "'");
    return connectGloo(glue_, endpoint_, store_, prefix_ + "/" + name, out);
  }

protected:
  Status run(const Call &call) override {
    char error[1024] = {0};
    int failed = 0;
    switch (call.kind) {
    case Kind::AllReduce:
      failed =
          glue_.allReduce(context_, call.data, call.count, glueType(call.dtype),
                          call.op == ReduceOp::Max   ? gloo_glue::kMax
                          : call.op == ReduceOp::Min ? gloo_glue::kMin
                                                     : gloo_glue::kSum,
                          call.tag, timeoutMs(), error, sizeof(error));
      break;
    case Kind::Broadcast:
      failed = glue_.broadcast(context_, call.data, call.count, call.root,
                               call.tag, timeoutMs(), error, sizeof(error));
      break;
    case Kind::AllGather:
      failed = glue_.allGather(context_, call.input, call.data, call.count,
                               call.tag, timeoutMs(), error, sizeof(error));
      break;
    case Kind::Barrier:
      failed =
          glue_.barrier(context_, call.tag, timeoutMs(), error, sizeof(error));
      break;
    }
    if (!failed)
      return Status::ok();
    return Status(StatusCode::Unavailable, error);
  }

private:
  GlooEndpoint endpoint_;
  const GlooLibrary &glue_;
  std::shared_ptr<Store> store_;
  std::string prefix_;
  void *context_;
};

/// Joins the ranks under `prefix` on `store`, then connects every pair of
/// them through Gloo.
Status connectGloo(const GlooLibrary &glue, const GlooEndpoint &endpoint,
                   std::shared_ptr<Store> store, const std::string &prefix,
                   std::unique_ptr<Communicator> &out) {
  const LaunchInfo &launch = endpoint.launch;
  NNC_RUNTIME_RETURN_IF_ERROR(collectives::join(
      *store, launch, prefix, endpoint.host, endpoint.timeoutMs));
  // The first communicator's keys are Gloo's own (as before splits
  // existed); a split's are under its prefix.
  std::unique_ptr<Store> keys;
  Store *rendezvous = store.get();
  if (prefix != "nnc") {
    keys = std::make_unique<PrefixStore>(store, prefix);
    rendezvous = keys.get();
  }
  gloo_glue::StoreCallbacks callbacks{rendezvous, storeSet, storeGet};
  char error[1024] = {0};
  void *context = glue.create(launch.rank, launch.worldSize,
                              endpoint.host.c_str(), endpoint.iface.c_str(),
                              endpoint.timeoutMs, &callbacks, error,
                              sizeof(error));
  if (!context)
    return Status(
        StatusCode::Unavailable,
        "rank " + std::to_string(launch.rank) + " of " +
            std::to_string(launch.worldSize) +
            " could not connect to the other ranks through Gloo" +
            (prefix == "nnc" ? std::string() : " (" + prefix + ")") + ": " +
            error);
  out = std::make_unique<GlooCommunicator>(endpoint, glue, std::move(store),
                                           prefix, context);
  return Status::ok();
}

} // namespace

Status collectives::join(Store &store, const LaunchInfo &launch,
                         const std::string &prefix, const std::string &host,
                         int64_t timeoutMs) {
  std::string me = std::to_string(launch.worldSize) + " " + host;
  NNC_RUNTIME_RETURN_IF_ERROR(
      store.set(prefix + "/rank/" + std::to_string(launch.rank), me));
  auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
  std::vector<int> missing;
  for (int r = 0; r < launch.worldSize; ++r) {
    int64_t left = std::max<int64_t>(
        0, std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                 Clock::now())
               .count());
    std::string value;
    Status status =
        store.get(prefix + "/rank/" + std::to_string(r), left, value);
    if (!status.isOk()) {
      missing.push_back(r);
      // The store's connection is closed after a timeout: the rest is
      // unknown, and named as such.
      for (int rest = r + 1; rest < launch.worldSize; ++rest)
        if (rest != launch.rank)
          missing.push_back(rest);
      break;
    }
    int theirs = std::atoi(value.c_str());
    if (theirs != launch.worldSize)
      return Status(StatusCode::InvalidArgument,
                    "rank " + std::to_string(r) + " (" +
                        value.substr(value.find(' ') + 1) +
                        ") was launched with a world of " +
                        std::to_string(theirs) + " processes, rank " +
                        std::to_string(launch.rank) + " with " +
                        std::to_string(launch.worldSize));
  }
  if (missing.empty())
    return Status::ok();
  std::string names;
  for (size_t i = 0; i < missing.size(); ++i)
    names += (i ? ", " : "") + std::to_string(missing[i]);
  return Status(StatusCode::Unavailable,
                "rank " + std::to_string(launch.rank) + " of " +
                    std::to_string(launch.worldSize) + ": no word from rank" +
                    (missing.size() > 1 ? "s " : " ") + names +
                    " at the rendezvous store " + launch.masterAddr + ":" +
                    std::to_string(launch.masterPort) + " within " +
                    secondsText(timeoutMs));
}

Status createGlooCommunicator(const CommunicatorOptions &options,
                              std::unique_ptr<Communicator> &out) {
  const LaunchInfo &launch = options.launch;
  NNC_RUNTIME_RETURN_IF_ERROR(collectives::checkOptions(options));
  const GlooLibrary &glue = glooLibrary();
  NNC_RUNTIME_RETURN_IF_ERROR(glue.status);
  std::string host = options.hostname;
  if (host.empty()) {
    char name[256] = {0};
    if (isLoopback(launch.masterAddr) || ::gethostname(name, sizeof(name)))
      host = "127.0.0.1";
    else
      host = name;
  }
  std::unique_ptr<Store> store;
  NNC_RUNTIME_RETURN_IF_ERROR(
      connectTcpStore(launch.masterAddr, launch.masterPort, launch.rank == 0,
                      options.timeoutMs, store));
  GlooEndpoint endpoint{launch, host, options.iface, options.timeoutMs};
  return connectGloo(glue, endpoint, std::shared_ptr<Store>(std::move(store)),
                     "nnc", out);
}

} // namespace nnc::runtime

void nnc_runtime_all_reduce(const void *input, void *output, int64_t count,
                            int32_t dtype) {
  nnc::runtime::CollectiveScopeAccess::allReduce(input, output, count, dtype);
}
