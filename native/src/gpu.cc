#include "gpu.h"

#include <faiss/clone_index.h>
#include <faiss/impl/FaissException.h>

#include "errors.h"

#ifdef OCVECTOR_WITH_GPU
#include <cuda_runtime_api.h>
#include <faiss/gpu/GpuCloner.h>
#include <faiss/gpu/GpuIndexFlat.h>
#include <faiss/gpu/GpuIndexIVF.h>
#include <faiss/gpu/StandardGpuResources.h>
#include <faiss/gpu/impl/IndexUtils.h>

#include "shared_per_device.h"
#endif

namespace ocvector {

// Declared for both builds below: a copy of `cpuIndex` on a GPU, or an empty
// placement and, in `failure`, why not.
static Placement TryGpuCopy(const faiss::Index& cpuIndex, std::string& failure);

#ifdef OCVECTOR_WITH_GPU

// The device every index is placed on.
constexpr int kDevice = 0;

static std::shared_ptr<GpuDevice> MakeGpuDevice(int id) {
  auto gpu = std::make_shared<GpuDevice>();
  gpu->id = id;
  // faiss/gpu/StandardGpuResources.h: class StandardGpuResources : public GpuResourcesProvider.
  // It sets a device up (cuBLAS handle, streams, up to 1.5 GiB of temporary memory) on first use.
  gpu->resources = std::make_shared<faiss::gpu::StandardGpuResources>();
  return gpu;
}

// Process-wide, like the CUDA context: one per device for every index of every
// worker thread. Never destroyed, and it holds weak references only, so the
// resources go with the last index that uses them.
static SharedPerDevice<GpuDevice>& SharedDevices() {
  static auto* devices = new SharedPerDevice<GpuDevice>(MakeGpuDevice);
  return *devices;
}

GpuInfo QueryGpu() {
  GpuInfo info;
  info.compiled = true;
  info.sharedResources = SharedDevices().Live();
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

// faiss/gpu/impl/IndexUtils.h: int getMaxKSelection(bool use_cuvs = false), which
// GpuIndex::search checks k against (validateKSelect) and GpuIndexIVF nprobe
// (validateNProbe): GPU_MAX_SELECTION_K, 2048 (faiss/gpu/utils/DeviceDefs.cuh).
int GpuMaxK() { return faiss::gpu::getMaxKSelection(); }

static Placement TryGpuCopy(const faiss::Index& cpuIndex, std::string& failure) {
  Placement placement;
  GpuInfo info = QueryGpu();
  failure = info.reason;
  if (!failure.empty()) return placement;
  try {
    std::shared_ptr<GpuDevice> gpu = SharedDevices().Get(kDevice);
    auto* resources = static_cast<faiss::gpu::StandardGpuResources*>(gpu->resources.get());
    std::lock_guard<std::mutex> lock(gpu->mutex);
    // faiss/gpu/GpuCloner.h: Index* index_cpu_to_gpu(GpuResourcesProvider*, int device,
    // const Index*, const GpuClonerOptions* = nullptr): a new index, the CPU one untouched; an
    // IndexIDMap2 stays on the CPU around a GPU copy of its index. Types without a GPU
    // implementation (HNSW) throw "This index type is not implemented on GPU".
    placement.index.reset(faiss::gpu::index_cpu_to_gpu(resources, kDevice, &cpuIndex));
    placement.gpu = gpu;
    placement.reason = "on GPU " + std::to_string(kDevice) + " of " + std::to_string(info.devices);
  } catch (const faiss::FaissException& e) {
    failure = "FAISS could not move this index to the GPU: " + StripFaissLocation(e.msg);
  } catch (const std::exception& e) {
    failure = std::string("FAISS could not move this index to the GPU: ") + e.what();
  }
  return placement;
}

std::unique_ptr<faiss::Index> CpuCopyOf(const faiss::Index& index, bool onGpu) {
  if (!onGpu) return nullptr;
  // faiss/gpu/GpuCloner.h: Index* index_gpu_to_cpu(const Index* gpu_index).
  return std::unique_ptr<faiss::Index>(faiss::gpu::index_gpu_to_cpu(&index));
}

IndexKind GpuIndexKind(const faiss::Index& index) {
  // faiss/gpu/GpuIndexFlat.h: class GpuIndexFlat : public GpuIndex (GpuIndexFlatL2/IP derive).
  if (dynamic_cast<const faiss::gpu::GpuIndexFlat*>(&index) != nullptr) return IndexKind::Flat;
  // faiss/gpu/GpuIndexIVF.h: class GpuIndexIVF : public GpuIndex, public IndexIVFInterface, the
  // base of GpuIndexIVFFlat, GpuIndexIVFPQ and GpuIndexIVFScalarQuantizer. Its search reads
  // SearchParametersIVF::nprobe (GpuIndexIVF::getCurrentNProbe_).
  if (dynamic_cast<const faiss::gpu::GpuIndexIVF*>(&index) != nullptr) return IndexKind::Ivf;
  return IndexKind::Other;
}

#else  // CPU-only FAISS

static const char* kNoGpuReason =
    "this addon was built against a CPU-only FAISS (Debian's libfaiss-dev); "
    "build FAISS with GPU support and the addon against it with scripts/build-gpu.sh";

GpuInfo QueryGpu() {
  GpuInfo info;
  info.reason = kNoGpuReason;
  return info;
}

int GpuMaxK() { return 0; }

static Placement TryGpuCopy(const faiss::Index&, std::string& failure) {
  failure = kNoGpuReason;
  return Placement();
}

std::unique_ptr<faiss::Index> CpuCopyOf(const faiss::Index&, bool) { return nullptr; }

IndexKind GpuIndexKind(const faiss::Index&) { return IndexKind::Other; }

#endif

Placement::~Placement() {
  if (gpu && index) {
    std::lock_guard<std::mutex> lock(gpu->mutex);
    index.reset();
  }
}

// The GPU copy when `device` asks for one and it can be made; otherwise an
// empty placement that says why the index stays on the CPU (thrown instead
// for Device::Gpu).
static Placement GpuCopyOrReason(const faiss::Index& cpuIndex, Device device) {
  Placement placement;
  if (device == Device::Cpu) {
    placement.reason = "CPU requested";
    return placement;
  }
  std::string failure;
  placement = TryGpuCopy(cpuIndex, failure);
  if (!placement.index) {
    if (device == Device::Gpu) throw NativeError(ErrorCode::Gpu, "cannot use a GPU: " + failure);
    placement.reason = failure;
  }
  return placement;
}

Placement PlaceIndex(std::unique_ptr<faiss::Index> cpuIndex, Device device) {
  Placement placement = GpuCopyOrReason(*cpuIndex, device);
  if (!placement.index) placement.index = std::move(cpuIndex);
  return placement;
}

Placement PlaceCopy(const faiss::Index& cpuIndex, Device device) {
  Placement placement = GpuCopyOrReason(cpuIndex, device);
  // faiss/clone_index.h: Index* clone_index(const Index*).
  if (!placement.index) placement.index.reset(faiss::clone_index(&cpuIndex));
  return placement;
}

}  // namespace ocvector
