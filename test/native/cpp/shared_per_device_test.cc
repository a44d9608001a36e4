// Checks SharedPerDevice (native/src/shared_per_device.h), the bookkeeping
// behind one set of FAISS GPU resources per device, on a machine without a
// GPU: a stand-in type counts how many objects are made and alive.
// Run by test/native/shared-per-device.test.ts; prints "ok N checks".
#include "shared_per_device.h"

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

std::atomic<int> made{0};
std::atomic<int> alive{0};
int checks = 0;

struct Resources {
  explicit Resources(int d) : device(d) { ++alive; }
  ~Resources() { --alive; }
  int device;
};

#define CHECK(condition)                                                       \
  do {                                                                         \
    ++checks;                                                                  \
    if (!(condition)) {                                                        \
      std::fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__,          \
                   #condition);                                                \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

std::shared_ptr<Resources> Make(int device) {
  ++made;
  if (device < 0)
    throw std::runtime_error("no such device");
  return std::make_shared<Resources>(device);
}

} // namespace

int main() {
  ocvector::SharedPerDevice<Resources> pool(Make);
  CHECK(pool.Live() == 0);

  {
    // Six indexes on one device share one object.
    std::vector<std::shared_ptr<Resources>> indexes;
    for (int i = 0; i < 6; ++i)
      indexes.push_back(pool.Get(0));
    for (const auto &index : indexes)
      CHECK(index == indexes[0]);
    CHECK(made == 1 && alive == 1 && pool.Live() == 1);
    // Another device has its own.
    auto other = pool.Get(1);
    CHECK(other != indexes[0] && other->device == 1);
    CHECK(made == 2 && alive == 2 && pool.Live() == 2);
    // Closing some indexes keeps the object for the others.
    indexes.resize(2);
    CHECK(alive == 2 && pool.Get(0) == indexes[0] && made == 2);
  }
  // The last holder gone, the object goes with it: nothing is kept for exit.
  CHECK(alive == 0 && pool.Live() == 0);
  // A later index makes a new one.
  auto again = pool.Get(0);
  CHECK(made == 3 && alive == 1 && pool.Live() == 1);
  again.reset();

  // A factory that throws leaves nothing behind, and the next call is
  // unaffected.
  bool threw = false;
  try {
    pool.Get(-1);
  } catch (const std::runtime_error &) {
    threw = true;
  }
  CHECK(threw && pool.Live() == 0 && alive == 0);
  CHECK(pool.Get(2)->device == 2);
  CHECK(alive == 0);

  // Threads that hold an object at the same time all hold the same one.
  made = 0;
  constexpr int kThreads = 16;
  std::vector<std::shared_ptr<Resources>> held(kThreads);
  std::mutex mutex;
  std::condition_variable everyone;
  int arrived = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i)
        pool.Get(3); // churn: made and freed again and again
      held[t] = pool.Get(4);
      std::unique_lock<std::mutex> lock(mutex);
      ++arrived;
      everyone.notify_all();
      everyone.wait(lock, [&] { return arrived == kThreads; });
    });
  }
  for (auto &thread : threads)
    thread.join();
  for (const auto &h : held)
    CHECK(h == held[0]);
  CHECK(pool.Live() == 1 && alive == 1);
  held.clear();
  CHECK(pool.Live() == 0 && alive == 0);

  std::printf("ok %d checks\n", checks);
  return 0;
}
