// GPU placement. The GPU code is compiled only when the addon is built against
// a FAISS with GPU support (cmake-js build, OCVECTOR_WITH_GPU: see
// scripts/build-gpu.sh); the default build against Debian's CPU-only FAISS
// reports why it stays on the CPU. Every FAISS GPU symbol used is named, with
// its header, in gpu.cc.
#pragma once

#include <faiss/Index.h>

#include <memory>
#include <mutex>
#include <string>

#include "index_kind.h"

namespace ocvector {

enum class Device { Cpu, Gpu, Auto };

struct GpuInfo {
  bool compiled = false;
  int devices = 0;
  int sharedResources = 0;  // devices whose shared GPU resources are alive (in use by an index)
  std::string reason;       // why indexes stay on the CPU; empty when a GPU is usable
};

GpuInfo QueryGpu();

// The largest k (and IVF nprobe) one GPU search may ask for, FAISS's GPU
// k-selection limit (2048 in CUDA builds); 0 without GPU support.
int GpuMaxK();

// What every index on one CUDA device shares: one set of FAISS GPU resources
// (cuBLAS handle, streams, temporary memory) instead of one per index, and the
// lock that serialises their use. FAISS's resources take no lock of their own,
// so every FAISS call that touches an index on this device (placement, train,
// add, search, reconstruct, copy back, destruction) holds `mutex`, taken after
// the index's own lock.
struct GpuDevice {
  int id = 0;
  std::mutex mutex;
  std::shared_ptr<void> resources;  // a faiss::gpu::StandardGpuResources
};

struct Placement {
  Placement() = default;
  Placement(Placement&&) = default;
  Placement& operator=(Placement&&) = default;
  ~Placement();  // an index still held here is freed under its device's lock

  std::shared_ptr<GpuDevice> gpu;  // set when `index` is on a GPU; outlives it
  std::unique_ptr<faiss::Index> index;
  std::string reason;  // why the index is where it is
};

// Places a CPU index on the requested device. Device::Gpu throws a NativeError
// (Gpu) when impossible; Device::Auto falls back to the CPU and says why.
Placement PlaceIndex(std::unique_ptr<faiss::Index> cpuIndex, Device device);

// A copy of a CPU index on the requested device; `cpuIndex` is left as it is.
Placement PlaceCopy(const faiss::Index& cpuIndex, Device device);

// A CPU copy of a GPU index (for writing it), or null for a CPU index. The
// caller holds the device's lock.
std::unique_ptr<faiss::Index> CpuCopyOf(const faiss::Index& index, bool onGpu);

// The kind of an index on a GPU (Flat, IVF or Other).
IndexKind GpuIndexKind(const faiss::Index& index);

}  // namespace ocvector
