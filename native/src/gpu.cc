#include "gpu.h"

#include "errors.h"

#ifdef OCVECTOR_WITH_GPU
#include <cuda_runtime_api.h>
#include <faiss/gpu/GpuCloner.h>
#include <faiss/gpu/StandardGpuResources.h>
#endif

namespace ocvector {

#ifdef OCVECTOR_WITH_GPU

GpuInfo QueryGpu() {
  GpuInfo info;
  info.compiled = true;
  // cudaGetDeviceCount directly: faiss::gpu::getNumDevices aborts the process
  // on driver errors instead of reporting them.
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    info.reason = std::string("CUDA reports no usable device: ") + cudaGetErrorString(status);
    return info;
  }
  info.devices = count;
  if (count == 0) info.reason = "FAISS was built with GPU support, but no CUDA device is present";
  return info;
}

Placement PlaceIndex(std::unique_ptr<faiss::Index> cpuIndex, Device device) {
  Placement placement;
  if (device == Device::Cpu) {
    placement.index = std::move(cpuIndex);
    placement.reason = "CPU requested";
    return placement;
  }
  GpuInfo info = QueryGpu();
  std::string failure = info.reason;
  if (failure.empty()) {
    try {
      auto resources = std::make_shared<faiss::gpu::StandardGpuResources>();
      std::unique_ptr<faiss::Index> gpuIndex(
          faiss::gpu::index_cpu_to_gpu(resources.get(), 0, cpuIndex.get()));
      placement.resources = resources;
      placement.index = std::move(gpuIndex);
      placement.onGpu = true;
      placement.reason = "on GPU 0 of " + std::to_string(info.devices);
      return placement;
    } catch (const std::exception& e) {
      // e.g. HNSW has no GPU implementation in FAISS.
      failure = std::string("FAISS could not move this index to the GPU: ") + e.what();
    }
  }
  if (device == Device::Gpu) throw NativeError(ErrorCode::Gpu, failure);
  placement.index = std::move(cpuIndex);
  placement.reason = failure;
  return placement;
}

std::unique_ptr<faiss::Index> CpuCopyOf(const faiss::Index& index, bool onGpu) {
  if (!onGpu) return nullptr;
  return std::unique_ptr<faiss::Index>(faiss::gpu::index_gpu_to_cpu(&index));
}

#else  // CPU-only FAISS

static const char* kNoGpuReason =
    "this addon was built against a CPU-only FAISS (Debian's libfaiss-dev); "
    "rebuild with `npm run build:cmake` against a FAISS built with GPU support";

GpuInfo QueryGpu() {
  GpuInfo info;
  info.reason = kNoGpuReason;
  return info;
}

Placement PlaceIndex(std::unique_ptr<faiss::Index> cpuIndex, Device device) {
  if (device == Device::Gpu)
    throw NativeError(ErrorCode::Gpu, std::string("no GPU: ") + kNoGpuReason);
  Placement placement;
  placement.index = std::move(cpuIndex);
  placement.reason = device == Device::Cpu ? "CPU requested" : kNoGpuReason;
  return placement;
}

std::unique_ptr<faiss::Index> CpuCopyOf(const faiss::Index&, bool) { return nullptr; }

#endif

}  // namespace ocvector
