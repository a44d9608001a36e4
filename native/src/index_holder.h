// The state behind one JS index object. Workers hold a shared_ptr to it, so a
// close() while work is in flight only drops the JS object's reference: the
// FAISS index is freed when the last operation using it has finished.
#pragma once

#include <faiss/Index.h>
#include <faiss/IndexIDMap.h>

#include <atomic>
#include <memory>
#include <shared_mutex>
#include <string>

namespace ocvector {

enum class IndexKind { Flat, Hnsw, Ivf, Other };

const char* IndexKindName(IndexKind kind);

struct IndexHolder {
  // Takes ownership of a CPU or GPU index. `gpuResources` (may be null) must
  // outlive the index; members are destroyed in reverse order, index first.
  IndexHolder(std::unique_ptr<faiss::Index> index, std::shared_ptr<void> gpuResources, bool onGpu,
              std::string deviceReason, std::string description);

  std::shared_ptr<void> gpuResources;
  std::unique_ptr<faiss::Index> index;

  // Structure, fixed at construction.
  faiss::IndexIDMap* idMap = nullptr;  // set when the index maps external ids
  faiss::Index* inner = nullptr;       // the index under the id map (or index)
  IndexKind kind = IndexKind::Other;
  bool supportsRemove = false;
  bool onGpu = false;
  std::string deviceReason;
  std::string description;
  int dimension = 0;
  bool innerProduct = true;

  // Searches, reconstruct and serialisation share the lock; train, add and
  // remove take it exclusively. FAISS's GPU resources are not safe for
  // concurrent use from several host threads, so on a GPU searches are
  // exclusive too.
  std::shared_mutex mutex;

  // Mirrors of index->ntotal / is_trained, updated under the exclusive lock,
  // so that the JS getters never read FAISS state while a worker mutates it.
  std::atomic<int64_t> ntotal{0};
  std::atomic<bool> trained{false};

  void RefreshCounters() {
    ntotal.store(index->ntotal);
    trained.store(index->is_trained);
  }
};

// Describes an index read from a file, in factory-string terms where possible.
std::string DescribeIndex(const faiss::Index& index);

}  // namespace ocvector
