#include "index_holder.h"

#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIVF.h>
#include <faiss/IndexIVFPQ.h>
#include <faiss/IndexPQ.h>
#include <faiss/IndexScalarQuantizer.h>

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

IndexHolder::IndexHolder(std::unique_ptr<faiss::Index> ownedIndex, std::shared_ptr<void> resources,
                         bool gpu, std::string reason, std::string desc)
    : gpuResources(std::move(resources)),
      index(std::move(ownedIndex)),
      onGpu(gpu),
      deviceReason(std::move(reason)),
      description(std::move(desc)) {
  idMap = dynamic_cast<faiss::IndexIDMap*>(index.get());
  inner = idMap != nullptr ? idMap->index : index.get();
  kind = KindOf(inner);
  // Flat and IVF indexes remove in place; HNSW graphs cannot drop a node.
  supportsRemove = !onGpu && (kind == IndexKind::Flat || kind == IndexKind::Ivf);
  dimension = static_cast<int>(index->d);
  innerProduct = index->metric_type == faiss::METRIC_INNER_PRODUCT;
  RefreshCounters();
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
  if (auto* ivf = dynamic_cast<const faiss::IndexIVF*>(&index)) {
    std::string codes = dynamic_cast<const faiss::IndexIVFScalarQuantizer*>(&index) ? "SQ" : "Flat";
    return "IVF" + std::to_string(ivf->nlist) + "," + codes;
  }
  if (auto* pq = dynamic_cast<const faiss::IndexPQ*>(&index)) {
    return "PQ" + std::to_string(pq->pq.M);
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
