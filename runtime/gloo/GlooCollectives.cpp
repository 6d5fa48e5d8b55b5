//===- GlooCollectives.cpp - libnnc_gloo.so, the runtime's Gloo glue ------===//
//
// The functions of nnc/runtime/GlooGlue.h on Gloo's own API: a
// gloo::rendezvous::Context connected as a full mesh over the TCP transport,
// then gloo::allreduce / broadcast / allgather / barrier with a tag and a
// timeout per call. Gloo reports failures (a peer gone, a timeout) by
// throwing; every entry point catches and turns them into a message.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/GlooGlue.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/config.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/types.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using namespace nnc::runtime::gloo_glue;

namespace {

void setError(char *error, size_t size, const std::string &message) {
  if (error && size)
    std::snprintf(error, size, "%s", message.c_str());
}

/// The runtime's store as Gloo's: a failing callback throws
/// gloo::IoException, which connectFullMesh lets through to nnc_gloo_create.
class CallbackStore : public gloo::rendezvous::Store {
public:
  CallbackStore(const StoreCallbacks &callbacks, int64_t timeoutMs)
      : callbacks_(callbacks), timeoutMs_(timeoutMs) {}

  void set(const std::string &key, const std::vector<char> &data) override {
    char error[512] = {0};
    if (callbacks_.set(callbacks_.self, key.c_str(), data.data(), data.size(),
                       error, sizeof(error)))
      throw gloo::IoException(error);
  }

  std::vector<char> get(const std::string &key) override {
    std::vector<char> out;
    fetch(key, timeoutMs_, &out);
    return out;
  }

  void wait(const std::vector<std::string> &keys) override {
    wait(keys, std::chrono::milliseconds(timeoutMs_));
  }

  void wait(const std::vector<std::string> &keys,
            const std::chrono::milliseconds &timeout) override {
    for (const std::string &key : keys)
      fetch(key, timeout.count(), nullptr);
  }

private:
  void fetch(const std::string &key, int64_t timeoutMs,
             std::vector<char> *out) {
    char error[512] = {0};
    auto receive = [](void *receiver, const void *data, size_t size) {
      if (receiver) {
        const char *bytes = static_cast<const char *>(data);
        static_cast<std::vector<char> *>(receiver)->assign(bytes, bytes + size);
      }
    };
    if (callbacks_.get(callbacks_.self, key.c_str(), timeoutMs, receive, out,
                       error, sizeof(error)))
      throw gloo::IoException(error);
  }

  StoreCallbacks callbacks_;
  int64_t timeoutMs_;
};

struct GlooContext {
  std::shared_ptr<gloo::transport::Device> device;
  std::shared_ptr<gloo::rendezvous::Context> context;
};

/// Runs `body`, turning what Gloo throws into a message.
template <typename Body>
int guarded(char *error, size_t errorSize, Body &&body) {
  try {
    body();
    return 0;
  } catch (const gloo::IoException &e) {
    setError(error, errorSize, std::string("I/O error: ") + e.what());
  } catch (const gloo::Exception &e) {
    setError(error, errorSize, e.what());
  } catch (const std::exception &e) {
    setError(error, errorSize, e.what());
  } catch (...) {
    setError(error, errorSize, "an unknown exception");
  }
  return 1;
}

template <typename T> gloo::AllreduceOptions::Func reduction(int32_t which) {
  switch (which) {
  case kMax:
    return [](void *c, const void *a, const void *b, size_t n) {
      gloo::max<T>(c, a, b, n);
    };
  case kMin:
    return [](void *c, const void *a, const void *b, size_t n) {
      gloo::min<T>(c, a, b, n);
    };
  default:
    return [](void *c, const void *a, const void *b, size_t n) {
      gloo::sum<T>(c, a, b, n);
    };
  }
}

template <typename T>
void allReduceAs(gloo::AllreduceOptions &options, void *data, size_t count,
                 int32_t which) {
  T *typed = static_cast<T *>(data);
  options.setOutput(typed, count);
  options.setReduceFunction(reduction<T>(which));
  gloo::allreduce(options);
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) void *
nnc_gloo_create(int32_t rank, int32_t size, const char *hostname,
                const char *iface, int64_t timeoutMs,
                const StoreCallbacks *store, char *error, size_t errorSize) {
  auto glue = std::make_unique<GlooContext>();
  int failed = guarded(error, errorSize, [&] {
    gloo::transport::tcp::attr attr;
    if (iface && *iface)
      attr.iface = iface;
    else
      attr.hostname = hostname && *hostname ? hostname : "127.0.0.1";
    glue->device = gloo::transport::tcp::CreateDevice(attr);
    glue->context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    glue->context->setTimeout(std::chrono::milliseconds(timeoutMs));
    CallbackStore callbackStore(*store, timeoutMs);
    glue->context->connectFullMesh(callbackStore, glue->device);
  });
  return failed ? nullptr : glue.release();
}

__attribute__((visibility("default"))) int
nnc_gloo_allreduce(void *context, void *data, size_t count, int32_t type,
                   int32_t which, uint32_t tag, int64_t timeoutMs, char *error,
                   size_t errorSize) {
  auto *glue = static_cast<GlooContext *>(context);
  return guarded(error, errorSize, [&] {
    gloo::AllreduceOptions options(glue->context);
    options.setTag(tag);
    options.setTimeout(std::chrono::milliseconds(timeoutMs));
    switch (type) {
    case kF32:
      return allReduceAs<float>(options, data, count, which);
    case kF64:
      return allReduceAs<double>(options, data, count, which);
    case kI32:
      return allReduceAs<int32_t>(options, data, count, which);
    case kI64:
      return allReduceAs<int64_t>(options, data, count, which);
    case kF16:
      return allReduceAs<gloo::float16>(options, data, count, which);
    case kU8:
      return allReduceAs<uint8_t>(options, data, count, which);
    default:
      throw std::invalid_argument("element type " + std::to_string(type) +
                                  " is not one the glue reduces");
    }
  });
}

__attribute__((visibility("default"))) int
nnc_gloo_broadcast(void *context, void *data, size_t bytes, int32_t root,
                   uint32_t tag, int64_t timeoutMs, char *error,
                   size_t errorSize) {
  auto *glue = static_cast<GlooContext *>(context);
  return guarded(error, errorSize, [&] {
    gloo::BroadcastOptions options(glue->context);
    options.setOutput(static_cast<uint8_t *>(data), bytes);
    options.setRoot(root);
    options.setTag(tag);
    options.setTimeout(std::chrono::milliseconds(timeoutMs));
    gloo::broadcast(options);
  });
}

__attribute__((visibility("default"))) int
nnc_gloo_allgather(void *context, const void *input, void *output, size_t bytes,
                   uint32_t tag, int64_t timeoutMs, char *error,
                   size_t errorSize) {
  auto *glue = static_cast<GlooContext *>(context);
  return guarded(error, errorSize, [&] {
    gloo::AllgatherOptions options(glue->context);
    // Gloo's input pointer is not const, though it only reads it.
    options.setInput(const_cast<uint8_t *>(static_cast<const uint8_t *>(input)),
                     bytes);
    options.setOutput(static_cast<uint8_t *>(output),
                      bytes * static_cast<size_t>(glue->context->size));
    options.setTag(tag);
    options.setTimeout(std::chrono::milliseconds(timeoutMs));
    gloo::allgather(options);
  });
}

__attribute__((visibility("default"))) int
nnc_gloo_barrier(void *context, uint32_t tag, int64_t timeoutMs, char *error,
                 size_t errorSize) {
  auto *glue = static_cast<GlooContext *>(context);
  return guarded(error, errorSize, [&] {
    gloo::BarrierOptions options(glue->context);
    options.setTag(tag);
    options.setTimeout(std::chrono::milliseconds(timeoutMs));
    gloo::barrier(options);
  });
}

__attribute__((visibility("default"))) void nnc_gloo_destroy(void *context) {
  delete static_cast<GlooContext *>(context);
}

__attribute__((visibility("default"))) const char *nnc_gloo_version() {
  static const std::string version = "gloo " +
                                     std::to_string(GLOO_VERSION_MAJOR) + "." +
                                     std::to_string(GLOO_VERSION_MINOR) + "." +
                                     std::to_string(GLOO_VERSION_PATCH);
  return version.c_str();
}

} // extern "C"
