#include "system_info.h"

#include <dlfcn.h>
#include <omp.h>
#include <sys/resource.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <string>

extern "C" {
// Any BLAS provides sgemm_; its address tells which library was loaded.
void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*,
            const float*, const int*, const float*, const int*, const float*, float*, const int*);
}

namespace ocvector {

static std::atomic<int> gThreads{0};

void SetThreadCount(int threads) { gThreads.store(threads < 0 ? 0 : threads); }

int ThreadCount() {
  int threads = gThreads.load();
  return threads > 0 ? threads : omp_get_num_procs();
}

void ApplyThreadCount() { omp_set_num_threads(ThreadCount()); }

bool CapMemoryGrowth(uint64_t extraBytes) {
#ifdef __linux__
  // RLIMIT_DATA counts private writable mappings (heap, malloc's mmaps, thread
  // stacks), not the address space V8 reserves without touching it.
  std::ifstream status("/proc/self/status");
  std::string line;
  uint64_t dataKb = 0;
  bool found = false;
  while (std::getline(status, line)) {
    if (line.rfind("VmData:", 0) == 0) {
      try {
        dataKb = std::stoull(line.substr(7));
        found = true;
      } catch (const std::exception&) {
      }
      break;
    }
  }
  struct rlimit limit {};
  if (!found || ::getrlimit(RLIMIT_DATA, &limit) != 0) return false;
  rlim_t wanted = static_cast<rlim_t>(dataKb * 1024 + extraBytes);
  if (limit.rlim_max != RLIM_INFINITY && wanted > limit.rlim_max) wanted = limit.rlim_max;
  limit.rlim_cur = wanted;
  return ::setrlimit(RLIMIT_DATA, &limit) == 0;
#else
  (void)extraBytes;
  return false;
#endif
}

BlasInfo QueryBlas() {
  BlasInfo info;
  info.vendor = "unknown";
  info.threading = "unknown";
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  info.ompWaitPolicy = policy != nullptr ? policy : "";

  Dl_info where{};
  if (dladdr(reinterpret_cast<void*>(&sgemm_), &where) == 0 || where.dli_fname == nullptr) {
    return info;
  }
  info.library = where.dli_fname;
  // The library is already loaded (it is linked); RTLD_NOLOAD only returns its
  // handle so its vendor-specific symbols can be looked up.
  void* handle = dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return info;

  using ConfigFn = const char* (*)();
  using ParallelFn = int (*)();
  if (auto config = reinterpret_cast<ConfigFn>(dlsym(handle, "openblas_get_config"))) {
    info.vendor = "openblas";
    info.config = config();
    // The kernel it picked for this CPU: an old OpenBLAS that does not know a
    // recent CPU falls back to a generic one, several times slower
    // (OPENBLAS_CORETYPE=SkylakeX, for example, overrides it).
    if (auto core = reinterpret_cast<ConfigFn>(dlsym(handle, "openblas_get_corename"))) {
      const char* name = core();
      info.coreType = name != nullptr ? name : "";
    }
    if (auto parallel = reinterpret_cast<ParallelFn>(dlsym(handle, "openblas_get_parallel"))) {
      switch (parallel()) {
        case 0: info.threading = "sequential"; break;
        case 1: info.threading = "pthreads"; break;
        case 2: info.threading = "openmp"; break;
        default: break;
      }
    }
  } else if (dlsym(handle, "mkl_get_max_threads") != nullptr) {
    info.vendor = "mkl";
  } else if (dlsym(handle, "bli_info_get_version_str") != nullptr) {
    info.vendor = "blis";
  } else {
    // Netlib's reference BLAS exports nothing but the standard routines.
    info.vendor = "reference";
    info.threading = "sequential";
  }
  dlclose(handle);
  return info;
}

}  // namespace ocvector
