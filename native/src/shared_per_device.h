// One object per CUDA device, shared by every holder and freed with the last
// one. The map keeps weak references only: nothing outlives the indexes that
// use it, and nothing GPU-side is left for static destruction at exit (when
// the CUDA runtime may already be unloading). Header-only and free of CUDA, so
// that test/native/cpp/ checks this bookkeeping on a machine without a GPU.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace ocvector {

template <typename T>
class SharedPerDevice {
 public:
  using Factory = std::function<std::shared_ptr<T>(int device)>;

  explicit SharedPerDevice(Factory make) : make_(std::move(make)) {}

  // The live object for `device`, or a new one from the factory. Concurrent
  // callers for one device get the same object; a factory that throws leaves
  // nothing behind.
  std::shared_ptr<T> Get(int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::weak_ptr<T>& slot = slots_[device];
    std::shared_ptr<T> shared = slot.lock();
    if (!shared) {
      shared = make_(device);
      slot = shared;
    }
    return shared;
  }

  // How many devices have a live object now.
  int Live() const {
    std::lock_guard<std::mutex> lock(mutex_);
    int live = 0;
    for (const auto& slot : slots_) live += slot.second.expired() ? 0 : 1;
    return live;
  }

 private:
  Factory make_;
  mutable std::mutex mutex_;
  std::map<int, std::weak_ptr<T>> slots_;
};

}  // namespace ocvector
