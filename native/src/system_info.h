// What the addon runs on: the BLAS library FAISS ended up linked to at run
// time (Debian's alternatives decide which libblas.so.3 is loaded), the OpenMP
// settings, and the thread count used by every worker.
#pragma once

#include <cstdint>
#include <string>

namespace ocvector {

struct BlasInfo {
  std::string library;    // path of the shared object that provides sgemm_
  std::string vendor;     // "openblas", "mkl", "blis", "reference" or "unknown"
  std::string config;     // vendor's own build description, when it has one
  std::string threading;  // "openmp", "pthreads", "sequential" or "unknown"
  std::string coreType;   // the CPU kernel OpenBLAS chose ("Haswell", "SkylakeX", "Prescott"...),
                          // when it says
  std::string ompWaitPolicy;  // OMP_WAIT_POLICY as this process sees it
};

BlasInfo QueryBlas();

// Thread count for FAISS and BLAS in every worker. OpenMP's thread count is a
// per-thread setting, so it is kept here and applied at the start of each
// worker's Execute(); 0 means "all cores".
void SetThreadCount(int threads);
int ThreadCount();
void ApplyThreadCount();

// Caps how much more memory this process may take (RLIMIT_DATA: its current
// data segment plus `extraBytes`), so that an allocation past it fails with
// std::bad_alloc instead of growing until the machine swaps or the kernel's
// OOM killer picks a process. For the short-lived child that checks a plain
// FAISS file, whose damaged sizes can ask for terabytes. Linux only; returns
// whether the cap is in force.
bool CapMemoryGrowth(uint64_t extraBytes);

}  // namespace ocvector
