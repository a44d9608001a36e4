// The state behind one JS index object. Workers hold a shared_ptr to it, so a
// close() while work is in flight only drops the JS object's reference: the
// FAISS index is freed when the last operation using it has finished.
#pragma once

#include <faiss/Index.h>
#include <faiss/IndexIDMap.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "gpu.h"
#include "index_kind.h"

namespace ocvector {

struct IndexHolder {
  // Takes ownership of a placed CPU or GPU index.
  IndexHolder(Placement placement, std::string description);
  // A GPU index is freed under its device's lock, before the device's
  // resources can go; without waiting when the device is busy.
  ~IndexHolder();

  std::shared_ptr<GpuDevice> gpu;  // set when the index is on a GPU
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
  // Read with `shared` (shared_reads.h): the one copy of its file for every
  // thread of the process, which train, add and remove refuse. Set before the
  // holder is handed to any thread.
  bool sharedRead = false;
  // Read with `mapped` (ReadIndexFile): an IVF index's lists point into a
  // mapping of its file, so it is read-only, and cannot be copied or written
  // either (FAISS would write the mapping's place, not the lists).
  bool mapped = false;

  // Searches, reconstruct and serialisation share the lock; train, add and
  // remove take it exclusively. FAISS's GPU resources are not safe for
  // concurrent use from several host threads, so on a GPU searches are
  // exclusive too, and every FAISS call also holds the device's lock
  // (LockGpu), as other indexes share its resources.
  std::shared_mutex mutex;

  // The device's lock for an index on a GPU (taken after `mutex`); an empty
  // lock on the CPU.
  std::unique_lock<std::mutex> LockGpu() const {
    return gpu ? std::unique_lock<std::mutex>(gpu->mutex) : std::unique_lock<std::mutex>();
  }

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
