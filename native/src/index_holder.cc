#include "index_holder.h"

#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIVF.h>
#include <faiss/IndexIVFPQ.h>
#include <faiss/IndexPQ.h>
#include <faiss/IndexScalarQuantizer.h>

#include <thread>
#include <typeinfo>

namespace ocvector {

const char* IndexKindName(IndexKind kind) {
  switch (kind) {
    case IndexKind::Flat: return "flat";
    case IndexKind::Hnsw: return "hnsw";
    case IndexKind::Ivf: return "ivf";
    case IndexKind::Other: return "other";
  }
  return "other";
}

static IndexKind KindOf(const faiss::Index* index) {
  if (dynamic_cast<const faiss::IndexFlat*>(index) != nullptr) return IndexKind::Flat;
  if (dynamic_cast<const faiss::IndexHNSW*>(index) != nullptr) return IndexKind::Hnsw;
  if (dynamic_cast<const faiss::IndexIVF*>(index) != nullptr) return IndexKind::Ivf;
  return IndexKind::Other;
}

IndexHolder::IndexHolder(Placement placement, std::string desc)
    : gpu(std::move(placement.gpu)),
      index(std::move(placement.index)),
      onGpu(gpu != nullptr),
      deviceReason(std::move(placement.reason)),
      description(std::move(desc)) {
  idMap = dynamic_cast<faiss::IndexIDMap*>(index.get());
  inner = idMap != nullptr ? idMap->index : index.get();
  kind = onGpu ? GpuIndexKind(*inner) : KindOf(inner);
  // Flat and IVF indexes remove in place on the CPU; HNSW graphs cannot drop a
  // node, and FAISS's GPU indexes do not implement remove_ids.
  supportsRemove = !onGpu && (kind == IndexKind::Flat || kind == IndexKind::Ivf);
  dimension = static_cast<int>(index->d);
  innerProduct = index->metric_type == faiss::METRIC_INNER_PRODUCT;
  RefreshCounters();
}

IndexHolder::~IndexHolder() {
  if (!gpu) return;
  std::unique_lock<std::mutex> lock(gpu->mutex, std::try_to_lock);
  if (lock.owns_lock()) {
    index.reset();
    return;
  }
  // A call on another index holds the device. This runs on the JS thread
  // (close(), or the garbage collector), which must not wait for it: the
  // index is freed beside it, as soon as the device is free.
  std::thread([index = std::move(index), gpu = gpu]() mutable {
    std::lock_guard<std::mutex> wait(gpu->mutex);
    index.reset();
  }).detach();
}

// The factory's name for a scalar quantizer type ("SQ" where it has none).
static std::string ScalarQuantizerName(const faiss::ScalarQuantizer& sq) {
  switch (sq.qtype) {
    case faiss::ScalarQuantizer::QT_8bit: return "SQ8";
    case faiss::ScalarQuantizer::QT_4bit: return "SQ4";
    case faiss::ScalarQuantizer::QT_6bit: return "SQ6";
    case faiss::ScalarQuantizer::QT_fp16: return "SQfp16";
    case faiss::ScalarQuantizer::QT_8bit_direct: return "SQ8_direct";
    default: return "SQ";
  }
}

static std::string DescribeInner(const faiss::Index& index) {
  if (dynamic_cast<const faiss::IndexFlat*>(&index) != nullptr) return "Flat";
  if (auto* hnsw = dynamic_cast<const faiss::IndexHNSW*>(&index)) {
    // M is the number of neighbours per node on the upper layers.
    int m = hnsw->hnsw.nb_neighbors(1);
    std::string storage = hnsw->storage != nullptr ? DescribeInner(*hnsw->storage) : "Flat";
    return "HNSW" + std::to_string(m) + "," + storage;
  }
  if (auto* ivfpq = dynamic_cast<const faiss::IndexIVFPQ*>(&index)) {
    return "IVF" + std::to_string(ivfpq->nlist) + ",PQ" + std::to_string(ivfpq->pq.M);
  }
  if (auto* ivfsq = dynamic_cast<const faiss::IndexIVFScalarQuantizer*>(&index)) {
    return "IVF" + std::to_string(ivfsq->nlist) + "," + ScalarQuantizerName(ivfsq->sq);
  }
  if (auto* ivf = dynamic_cast<const faiss::IndexIVF*>(&index)) {
    return "IVF" + std::to_string(ivf->nlist) + ",Flat";
  }
  if (auto* pq = dynamic_cast<const faiss::IndexPQ*>(&index)) {
    return "PQ" + std::to_string(pq->pq.M);
  }
  if (auto* sq = dynamic_cast<const faiss::IndexScalarQuantizer*>(&index)) {
    return ScalarQuantizerName(sq->sq);
  }
  return typeid(index).name();
}

std::string DescribeIndex(const faiss::Index& index) {
  if (auto* idMap = dynamic_cast<const faiss::IndexIDMap*>(&index)) {
    return DescribeInner(*idMap->index);
  }
  return DescribeInner(index);
}

}  // namespace ocvector
