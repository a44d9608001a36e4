// GPU placement. The GPU code is compiled only when the addon is built against
// a FAISS with GPU support (cmake-js build, OCVECTOR_WITH_GPU); the default
// build against Debian's CPU-only FAISS reports why it stays on the CPU.
#pragma once

#include <faiss/Index.h>

#include <memory>
#include <string>

namespace ocvector {

enum class Device { Cpu, Gpu, Auto };

struct GpuInfo {
  bool compiled = false;
  int devices = 0;
  std::string reason;  // why indexes stay on the CPU; empty when a GPU is usable
};

GpuInfo QueryGpu();

struct Placement {
  std::shared_ptr<void> resources;  // GPU resources that must outlive `index`
  std::unique_ptr<faiss::Index> index;
  bool onGpu = false;
  std::string reason;  // why the index is where it is
};

// Places a CPU index on the requested device. Device::Gpu throws a NativeError
// (Gpu) when impossible; Device::Auto falls back to the CPU and says why.
Placement PlaceIndex(std::unique_ptr<faiss::Index> cpuIndex, Device device);

// A CPU copy of a GPU index (for writing it), or null for a CPU index.
std::unique_ptr<faiss::Index> CpuCopyOf(const faiss::Index& index, bool onGpu);

}  // namespace ocvector
