#include "faiss_index.h"

#include <faiss/IndexHNSW.h>
#include <faiss/IndexIVF.h>
#include <faiss/IndexScalarQuantizer.h>
#include <faiss/impl/HNSW.h>
#include <faiss/impl/IDSelector.h>
#include <faiss/index_factory.h>
#include <faiss/invlists/DirectMap.h>
#include <faiss/invlists/InvertedLists.h>
#include <faiss/invlists/OnDiskInvertedLists.h>
#include <omp.h>

#include <mutex>
#include <shared_mutex>
#include <unordered_set>
#include <vector>

#include "allowed_search.h"
#include "arguments.h"
#include "errors.h"
#include "faiss_compat.h"
#include "flat_search.h"
#include "gpu.h"
#include "half_ivf_search.h"
#include "index_io.h"
#include "instance_data.h"
#include "promise_worker.h"
#include "reconstruct_many.h"
#include "shared_reads.h"

namespace ocvector {
namespace {

// Distinguishes the External that NewInstance passes from anything a caller
// could pass to the constructor.
constexpr napi_type_tag kHolderTag = {0x6f6376656374a11dULL, 0x9e5b2c3d4f607182ULL};

constexpr int64_t kMaxDimension = 1 << 16;
constexpr int64_t kMaxK = int64_t(1) << 20;
// Results one search call may return (nq·k); 12 bytes each. The outputs are
// allocated on the JS thread, where a failed allocation aborts the process.
constexpr int64_t kMaxResults = int64_t(1) << 26;

Device ParseDevice(Napi::Env env, const std::string& name) {
  if (name == "cpu") return Device::Cpu;
  if (name == "gpu") return Device::Gpu;
  if (name == "auto") return Device::Auto;
  ThrowJs(env, ErrorCode::InvalidArgument,
          "device must be 'cpu', 'gpu' or 'auto', not '" + name + "'");
}

// A worker's own copy of an input array. Holding a reference to the JS array
// does not keep its memory: the caller may transfer (detach) its ArrayBuffer
// while the call is pending, which frees or moves the backing store.
template <typename T>
std::vector<T> CopyOf(const T* data, size_t count) {
  return std::vector<T>(data, data + count);
}

class HolderWorker : public PromiseWorker {
 public:
  HolderWorker(Napi::Env env, std::shared_ptr<IndexHolder> holder)
      : PromiseWorker(env), holder_(std::move(holder)) {}

 protected:
  std::shared_ptr<IndexHolder> holder_;
};

// Produces a new NativeIndex when it settles (create, read, fromBuffer).
// An IVF index of half-precision codes keeps each vector itself rather than
// its residual from the list's centroid: vectors that are at half precision
// already (the store rounds them so) are then kept exactly, read back exactly
// (reconstructMany), and scored as the Flat index would score them.
void KeepHalfPrecisionExact(faiss::Index& index) {
  auto* ivf = dynamic_cast<faiss::IndexIVFScalarQuantizer*>(&index);
  if (ivf != nullptr && ivf->sq.qtype == faiss::ScalarQuantizer::QT_fp16) ivf->by_residual = false;
}

class MakeIndexWorker : public PromiseWorker {
 public:
  using PromiseWorker::PromiseWorker;

 protected:
  Napi::Value Result(Napi::Env env) override { return NativeIndex::NewInstance(env, holder_); }

  void Adopt(std::unique_ptr<faiss::Index> cpuIndex, Device device, std::string description) {
    holder_ = std::make_shared<IndexHolder>(PlaceIndex(std::move(cpuIndex), device),
                                            std::move(description));
  }

  std::shared_ptr<IndexHolder> holder_;
};

class CreateWorker : public MakeIndexWorker {
 public:
  CreateWorker(Napi::Env env, int d, std::string description, faiss::MetricType metric,
               bool withIds, Device device)
      : MakeIndexWorker(env),
        d_(d),
        description_(std::move(description)),
        metric_(metric),
        withIds_(withIds),
        device_(device) {}

 private:
  void Run() override {
    std::unique_ptr<faiss::Index> index;
    // Every FAISS complaint here is about the arguments (an unknown factory
    // string, a PQ size that does not divide d, ...).
    RunTranslatingErrors(
        [&] { index.reset(faiss::index_factory(d_, description_.c_str(), metric_)); },
        ErrorCode::InvalidArgument);
    KeepHalfPrecisionExact(*index);
    if (withIds_ && dynamic_cast<faiss::IndexIDMap*>(index.get()) == nullptr) {
      auto* idMap = new faiss::IndexIDMap2(index.get());
      idMap->own_fields = true;
      index.release();
      index.reset(idMap);
    }
    Adopt(std::move(index), device_, description_);
  }

  int d_;
  std::string description_;
  faiss::MetricType metric_;
  bool withIds_;
  Device device_;
};

class ReadWorker : public MakeIndexWorker {
 public:
  ReadWorker(Napi::Env env, std::string path, Device device, bool allowPlain, bool shared,
             bool mapped)
      : MakeIndexWorker(env),
        path_(std::move(path)),
        device_(device),
        allowPlain_(allowPlain),
        shared_(shared),
        mapped_(mapped) {}

 private:
  void Run() override {
    if (!shared_) return ReadNow();
    // One index in memory for every thread of the process that reads this file shared (mapped or
    // read: two indexes).
    holder_ =
        SharedReads::Instance().Get(FileIdentity(path_) + (mapped_ ? "\nmapped" : ""), [this] {
          ReadNow();
          return holder_;
        });
  }
  void ReadNow() {
    std::unique_ptr<faiss::Index> index = ReadIndexFile(path_, allowPlain_, mapped_);
    std::string description = DescribeIndex(*index);
    Adopt(std::move(index), device_, description);
    // Only an IVF index's lists are mapped (FAISS reads other types whole, the checksum pass
    // aside).
    const auto* ivf = dynamic_cast<const faiss::IndexIVF*>(holder_->inner);
    holder_->mapped =
        ivf != nullptr && dynamic_cast<const faiss::OnDiskInvertedLists*>(ivf->invlists) != nullptr;
  }
  std::string path_;
  Device device_;
  bool allowPlain_;
  bool shared_;
  bool mapped_;
};

class FromBufferWorker : public MakeIndexWorker {
 public:
  FromBufferWorker(Napi::Env env, Napi::Uint8Array buffer, Device device, bool allowPlain)
      : MakeIndexWorker(env),
        bytes_(CopyOf(buffer.Data(), buffer.ElementLength())),
        device_(device),
        allowPlain_(allowPlain) {}

 private:
  void Run() override {
    std::unique_ptr<faiss::Index> index =
        DeserializeIndex(bytes_.data(), bytes_.size(), allowPlain_);
    std::vector<uint8_t>().swap(bytes_);
    std::string description = DescribeIndex(*index);
    Adopt(std::move(index), device_, description);
  }
  std::vector<uint8_t> bytes_;
  Device device_;
  bool allowPlain_;
};

// A copy of an open index on a device of the caller's choosing; the index
// itself stays where it is. A GPU index is copied through the CPU, as FAISS
// clones GPU indexes.
class CopyWorker : public MakeIndexWorker {
 public:
  CopyWorker(Napi::Env env, std::shared_ptr<IndexHolder> source, Device device)
      : MakeIndexWorker(env), source_(std::move(source)), device_(device) {}

 private:
  void Run() override {
    Placement placement;
    if (source_->onGpu) {
      std::unique_ptr<faiss::Index> cpu;
      {
        std::unique_lock<std::shared_mutex> lock(source_->mutex);
        std::unique_lock<std::mutex> gpuLock = source_->LockGpu();
        cpu = CpuCopyOf(*source_->index, true);
      }
      placement = PlaceIndex(std::move(cpu), device_);
    } else {
      std::shared_lock<std::shared_mutex> lock(source_->mutex);
      placement = PlaceCopy(*source_->index, device_);
    }
    holder_ = std::make_shared<IndexHolder>(std::move(placement), source_->description);
  }

  std::shared_ptr<IndexHolder> source_;
  Device device_;
};

void RequireTrained(const IndexHolder& holder, const char* action) {
  if (!holder.index->is_trained) {
    throw NativeError(ErrorCode::NotTrained,
                      std::string("cannot ") + action + ": the index (" + holder.description +
                          ") must be trained first; call train() with representative vectors");
  }
}

class TrainWorker : public HolderWorker {
 public:
  TrainWorker(Napi::Env env, std::shared_ptr<IndexHolder> holder, Napi::Float32Array vectors,
              int64_t rows)
      : HolderWorker(env, std::move(holder)),
        data_(CopyOf(vectors.Data(), vectors.ElementLength())),
        rows_(rows) {}

 private:
  void Run() override {
    CheckFinite(data_.data(), rows_, holder_->dimension, "vectors");
    std::unique_lock<std::shared_mutex> lock(holder_->mutex);
    std::unique_lock<std::mutex> gpuLock = holder_->LockGpu();
    holder_->index->train(rows_, data_.data());
    holder_->RefreshCounters();
  }
  std::vector<float> data_;
  int64_t rows_;
};

class AddWorker : public HolderWorker {
 public:
  AddWorker(Napi::Env env, std::shared_ptr<IndexHolder> holder, Napi::Float32Array vectors,
            int64_t rows, const int64_t* ids)
      : HolderWorker(env, std::move(holder)),
        vectors_(CopyOf(vectors.Data(), vectors.ElementLength())),
        rows_(rows),
        idCopy_(ids != nullptr ? CopyOf(ids, static_cast<size_t>(rows)) : std::vector<int64_t>()),
        data_(vectors_.data()),
        ids_(ids != nullptr ? idCopy_.data() : nullptr) {}

 private:
  void Run() override {
    CheckFinite(data_, rows_, holder_->dimension, "vectors");
    std::unique_lock<std::shared_mutex> lock(holder_->mutex);
    std::unique_lock<std::mutex> gpuLock = holder_->LockGpu();
    RequireTrained(*holder_, "add vectors");
    if (ids_ == nullptr) {
      if (holder_->idMap != nullptr) {
        throw NativeError(ErrorCode::Unsupported,
                          "this index maps your own ids: use addWithIds(vectors, ids)");
      }
      holder_->index->add(rows_, data_);
    } else {
      CheckIds();
      holder_->index->add_with_ids(rows_, data_, ids_);
    }
    holder_->RefreshCounters();
  }

  // Ids must be non-negative (-1 marks "no result") and, with an id map,
  // unique: FAISS would otherwise keep two vectors under one id.
  void CheckIds() const {
    if (holder_->idMap == nullptr && holder_->kind != IndexKind::Ivf) {
      throw NativeError(
          ErrorCode::Unsupported,
          "this index numbers vectors itself; create it with ids: true to use your own ids");
    }
    std::unordered_set<int64_t> batch;
    batch.reserve(static_cast<size_t>(rows_));
    auto* idMap2 = dynamic_cast<faiss::IndexIDMap2*>(holder_->index.get());
    std::unordered_set<int64_t> existing;
    if (holder_->idMap != nullptr && idMap2 == nullptr) {
      existing.insert(holder_->idMap->id_map.begin(), holder_->idMap->id_map.end());
    }
    for (int64_t i = 0; i < rows_; ++i) {
      const int64_t id = ids_[i];
      if (id < 0) {
        throw NativeError(
            ErrorCode::InvalidArgument,
            "ids[" + std::to_string(i) + "] is " + std::to_string(id) + "; ids must be >= 0");
      }
      if (holder_->idMap == nullptr) continue;
      const bool known = idMap2 != nullptr ? idMap2->rev_map.count(id) > 0 : existing.count(id) > 0;
      if (known || !batch.insert(id).second) {
        throw NativeError(ErrorCode::InvalidArgument,
                          "id " + std::to_string(id) + " is already in the index" +
                              (known ? "" : " batch") + "; remove it first or use another id");
      }
    }
  }

  std::vector<float> vectors_;
  int64_t rows_;
  std::vector<int64_t> idCopy_;
  const float* data_;
  const int64_t* ids_;
};

class SearchWorker : public HolderWorker {
 public:
  // `allowed`, unless an empty handle (no set given), restricts the results to
  // its ids, even to none (allowed_search.h).
  SearchWorker(Napi::Env env, std::shared_ptr<IndexHolder> holder, Napi::Float32Array queries,
               int64_t rows, int64_t k, SearchOptions options, Napi::BigInt64Array allowed)
      : HolderWorker(env, std::move(holder)),
        queryCopy_(CopyOf(queries.Data(), queries.ElementLength())),
        queries_(queryCopy_.data()),
        rows_(rows),
        k_(k),
        options_(options),
        restricted_(!allowed.IsEmpty()),
        allowed_(restricted_ ? CopyOf(allowed.Data(), allowed.ElementLength())
                             : std::vector<int64_t>()) {
    // The outputs are allocated here, on the JS thread, and filled in place by
    // the worker: no copy when the Promise settles. A napi_value does not
    // outlive this call's handle scope, so they are held by reference.
    const size_t count = static_cast<size_t>(rows) * static_cast<size_t>(k);
    Napi::Float32Array distances = Napi::Float32Array::New(env, count);
    Napi::BigInt64Array labels = Napi::BigInt64Array::New(env, count);
    distancesData_ = distances.Data();
    labelsData_ = labels.Data();
    distances_ = Napi::Persistent(distances.As<Napi::Object>());
    labels_ = Napi::Persistent(labels.As<Napi::Object>());
  }

 private:
  void Run() override {
    CheckFinite(queries_, rows_, holder_->dimension, "queries");
    if (restricted_) CheckAllowedIds(allowed_);
    std::shared_lock<std::shared_mutex> shared(holder_->mutex, std::defer_lock);
    std::unique_lock<std::shared_mutex> exclusive(holder_->mutex, std::defer_lock);
    if (holder_->onGpu) {
      exclusive.lock();
    } else {
      shared.lock();
      if (!HnswEfSearchIsSet()) {
        // FAISS 1.7's IndexHNSW::search ignores SearchParametersHNSW::efSearch,
        // so the value is set on the index itself, which needs the exclusive
        // lock. Searches that keep the current value run in parallel.
        shared.unlock();
        exclusive.lock();
        static_cast<faiss::IndexHNSW*>(holder_->inner)->hnsw.efSearch =
            static_cast<int>(options_.efSearch);
      }
    }
    std::unique_lock<std::mutex> gpuLock = holder_->LockGpu();

    RequireTrained(*holder_, "search");
    idx_t* labels = reinterpret_cast<idx_t*>(labelsData_);
    if (restricted_) {
      SearchAllowed(*holder_, allowed_, rows_, queries_, k_, options_, omp_get_max_threads(),
                    distancesData_, labels);
    } else {
      SearchAll(labels);
    }
    if (holder_->idMap != nullptr) {
      const std::vector<idx_t>& idMap = holder_->idMap->id_map;
      const idx_t entries = static_cast<idx_t>(idMap.size());
      const size_t count = static_cast<size_t>(rows_) * static_cast<size_t>(k_);
      for (size_t i = 0; i < count; ++i) {
        if (labels[i] >= 0) labels[i] = labels[i] < entries ? idMap[labels[i]] : -1;
      }
    }
  }

  // The search without a set of allowed ids; labels are the inner index's.
  void SearchAll(idx_t* labels) {
    const int64_t total = holder_->index->ntotal;
    if (total == 0)
      throw NativeError(ErrorCode::InvalidArgument, "cannot search: the index is empty");
    if (k_ > total) {
      throw NativeError(ErrorCode::InvalidArgument,
                        "k is " + std::to_string(k_) + " but the index holds only " +
                            std::to_string(total) + " vectors; pass k <= ntotal");
    }
    faiss::SearchParametersHNSW hnswParams;
    faiss::SearchParametersIVF ivfParams;
    const faiss::SearchParameters* params = nullptr;
    if (options_.efSearch > 0) {
      hnswParams.efSearch = static_cast<int>(options_.efSearch);
      params = &hnswParams;
    } else if (options_.nprobe > 0) {
      ivfParams.nprobe = static_cast<size_t>(options_.nprobe);
      params = &ivfParams;
    }

    const auto* flat = dynamic_cast<const faiss::IndexFlat*>(holder_->inner);
    const int threads = omp_get_max_threads();
    const auto* halves = holder_->onGpu ? nullptr : HalfIvfSearchable(*holder_->inner);
    if (halves != nullptr) {
      const size_t nprobe =
          options_.nprobe > 0 ? static_cast<size_t>(options_.nprobe) : halves->nprobe;
      HalfIvfSearch(*halves, rows_, queries_, k_, nprobe, nullptr, threads, distancesData_, labels);
    } else if (flat != nullptr && !holder_->onGpu &&
               PrefersSlicedFlatSearch(*flat, rows_, threads)) {
      SlicedFlatSearch(*flat, rows_, queries_, k_, distancesData_, labels, threads);
    } else {
      // The inner index is searched directly so that per-call parameters
      // work under an id map too (FAISS 1.7's IndexIDMap refuses them).
      holder_->inner->search(rows_, queries_, k_, distancesData_, labels, params);
    }
  }

  bool HnswEfSearchIsSet() const {
    if (options_.efSearch <= 0 || holder_->kind != IndexKind::Hnsw) return true;
    return static_cast<const faiss::IndexHNSW*>(holder_->inner)->hnsw.efSearch == options_.efSearch;
  }

  Napi::Value Result(Napi::Env env) override {
    Napi::Object result = Napi::Object::New(env);
    result.Set("distances", distances_.Value());
    result.Set("labels", labels_.Value());
    return result;
  }

  std::vector<float> queryCopy_;
  const float* queries_;
  int64_t rows_;
  int64_t k_;
  SearchOptions options_;
  bool restricted_;
  std::vector<int64_t> allowed_;
  Napi::ObjectReference distances_;
  Napi::ObjectReference labels_;
  float* distancesData_ = nullptr;
  int64_t* labelsData_ = nullptr;
};

class RemoveWorker : public HolderWorker {
 public:
  RemoveWorker(Napi::Env env, std::shared_ptr<IndexHolder> holder, Napi::BigInt64Array ids)
      : HolderWorker(env, std::move(holder)),
        idCopy_(CopyOf(ids.Data(), ids.ElementLength())),
        ids_(idCopy_.data()),
        count_(idCopy_.size()) {}

 private:
  void Run() override {
    std::unique_lock<std::shared_mutex> lock(holder_->mutex);
    if (!holder_->supportsRemove) throw NativeError(ErrorCode::Unsupported, CannotRemove());
    faiss::IDSelectorBatch selector(static_cast<size_t>(count_), ids_);
    auto* ivf =
        holder_->idMap != nullptr ? dynamic_cast<faiss::IndexIVF*>(holder_->inner) : nullptr;
    auto* lists =
        ivf != nullptr ? dynamic_cast<faiss::ArrayInvertedLists*>(ivf->invlists) : nullptr;
    if (lists == nullptr) {
      removed_ = holder_->index->remove_ids(selector);
    } else {
      removed_ = RemoveRenumbering(*ivf, *lists, selector);
    }
    holder_->RefreshCounters();
  }

  // Under an id map, an IVF's lists hold positions in the map. FAISS's
  // IndexIDMap::remove_ids compacts the map but leaves those positions as they
  // were (an IVF does not renumber on removal): later vectors were then found
  // under another vector's id, or not at all. The positions are renumbered here
  // the way the map was compacted.
  size_t RemoveRenumbering(faiss::IndexIVF& ivf, faiss::ArrayInvertedLists& lists,
                           const faiss::IDSelector& selector) {
    const std::vector<idx_t> before(holder_->idMap->id_map.begin(), holder_->idMap->id_map.end());
    const idx_t entries = static_cast<idx_t>(before.size());
    for (const auto& ids : lists.ids) {
      for (size_t j = 0; j < ids.size(); ++j) {
        if (ids[j] < 0 || ids[j] >= entries) {
          throw NativeError(ErrorCode::Corrupt,
                            "this index's inverted lists refer past the end of its id map (an "
                            "index written after a removal by an older ocvector); rebuild it");
        }
      }
    }
    const size_t removed = holder_->index->remove_ids(selector);
    std::vector<idx_t> position(before.size(), -1);
    idx_t next = 0;
    for (size_t i = 0; i < before.size(); ++i) {
      if (!selector.is_member(before[i])) position[i] = next++;
    }
    for (auto& ids : lists.ids) {
      for (size_t j = 0; j < ids.size(); ++j) ids[j] = position[static_cast<size_t>(ids[j])];
    }
    if (ivf.direct_map.type == faiss::DirectMap::Hashtable) {
      // Keyed by position: rebuilt from the renumbered lists.
      ivf.set_direct_map_type(faiss::DirectMap::NoMap);
      ivf.set_direct_map_type(faiss::DirectMap::Hashtable);
    }
    return removed;
  }

  // Why this index refuses removals, and what to do instead.
  std::string CannotRemove() const {
    const std::string what = "this index (" + holder_->description + ")";
    if (holder_->onGpu) {
      // No faiss::gpu index overrides Index::remove_ids (faiss/gpu/GpuIndex*.h).
      return what +
             " is on a GPU, and FAISS's GPU indexes cannot remove vectors: remove them from a CPU "
             "copy (copyTo('cpu')) and place that on the GPU again (copyTo('gpu')), or rebuild "
             "the index without them";
    }
    return what + " cannot remove vectors; rebuild it without them, or use a Flat or IVF index";
  }

  Napi::Value Result(Napi::Env env) override {
    return Napi::Number::New(env, static_cast<double>(removed_));
  }

  std::vector<int64_t> idCopy_;
  const int64_t* ids_;
  size_t count_;
  size_t removed_ = 0;
};

class ReconstructManyWorker : public HolderWorker {
 public:
  ReconstructManyWorker(Napi::Env env, std::shared_ptr<IndexHolder> holder, Napi::BigInt64Array ids)
      : HolderWorker(env, std::move(holder)), ids_(CopyOf(ids.Data(), ids.ElementLength())) {
    // Allocated here, on the JS thread, and filled in place (as SearchWorker's outputs).
    const size_t count = ids_.size();
    Napi::Float32Array vectors =
        Napi::Float32Array::New(env, count * static_cast<size_t>(holder_->dimension));
    Napi::Uint8Array found = Napi::Uint8Array::New(env, count);
    vectorsData_ = vectors.Data();
    foundData_ = found.Data();
    vectors_ = Napi::Persistent(vectors.As<Napi::Object>());
    found_ = Napi::Persistent(found.As<Napi::Object>());
  }

 private:
  void Run() override {
    std::shared_lock<std::shared_mutex> lock(holder_->mutex);
    if (holder_->onGpu) {
      throw NativeError(ErrorCode::Unsupported,
                        "reading vectors back works on a CPU index; this one is on a GPU: read "
                        "them from a CPU copy (copyTo('cpu'))");
    }
    ReconstructMany(*holder_->index, ids_.data(), ids_.size(), vectorsData_, foundData_);
  }

  Napi::Value Result(Napi::Env env) override {
    Napi::Object result = Napi::Object::New(env);
    result.Set("vectors", vectors_.Value());
    result.Set("found", found_.Value());
    return result;
  }

  std::vector<int64_t> ids_;
  float* vectorsData_ = nullptr;
  uint8_t* foundData_ = nullptr;
  Napi::ObjectReference vectors_;
  Napi::ObjectReference found_;
};

class ReconstructWorker : public HolderWorker {
 public:
  ReconstructWorker(Napi::Env env, std::shared_ptr<IndexHolder> holder, int64_t id)
      : HolderWorker(env, std::move(holder)), id_(id) {}

 private:
  void Run() override {
    std::shared_lock<std::shared_mutex> lock(holder_->mutex);
    if (holder_->onGpu && holder_->kind != IndexKind::Flat) {
      // faiss/gpu: of the GPU float indexes only GpuIndexFlat overrides Index::reconstruct.
      throw NativeError(ErrorCode::Unsupported,
                        "reconstruct on a GPU index works for Flat only; this index is " +
                            holder_->description + ": reconstruct from a CPU copy (copyTo('cpu'))");
    }
    std::unique_lock<std::mutex> gpuLock = holder_->LockGpu();
    faiss::Index& index = *holder_->index;
    if (holder_->idMap != nullptr) {
      auto* idMap2 = dynamic_cast<faiss::IndexIDMap2*>(&index);
      if (idMap2 == nullptr) {
        throw NativeError(ErrorCode::Unsupported,
                          "reconstruct needs an IDMap2 index (create with ids: true)");
      }
      if (idMap2->rev_map.count(id_) == 0) {
        throw NativeError(ErrorCode::InvalidArgument, "no vector with id " + std::to_string(id_));
      }
    } else if (id_ < 0 || id_ >= index.ntotal) {
      throw NativeError(ErrorCode::InvalidArgument, "no vector with id " + std::to_string(id_) +
                                                        " (the index holds ids 0 to " +
                                                        std::to_string(index.ntotal - 1) + ")");
    }
    vector_.resize(static_cast<size_t>(index.d));
    index.reconstruct(id_, vector_.data());
  }

  Napi::Value Result(Napi::Env env) override {
    Napi::Float32Array out = Napi::Float32Array::New(env, vector_.size());
    std::copy(vector_.begin(), vector_.end(), out.Data());
    return out;
  }

  int64_t id_;
  std::vector<float> vector_;
};

// Runs `body` with a CPU index equivalent to the holder's (a copy when on GPU).
template <typename Body>
void WithCpuIndex(IndexHolder& holder, Body body) {
  std::shared_lock<std::shared_mutex> shared(holder.mutex, std::defer_lock);
  std::unique_lock<std::shared_mutex> exclusive(holder.mutex, std::defer_lock);
  if (holder.onGpu)
    exclusive.lock();
  else
    shared.lock();
  std::unique_ptr<faiss::Index> copy;
  {
    std::unique_lock<std::mutex> gpuLock = holder.LockGpu();
    copy = CpuCopyOf(*holder.index, holder.onGpu);
  }
  body(copy ? *copy : *holder.index);
}

class WriteWorker : public HolderWorker {
 public:
  WriteWorker(Napi::Env env, std::shared_ptr<IndexHolder> holder, std::string path)
      : HolderWorker(env, std::move(holder)), path_(std::move(path)) {}

 private:
  void Run() override {
    WithCpuIndex(*holder_, [&](const faiss::Index& index) { WriteIndexFile(index, path_); });
  }
  std::string path_;
};

class ToBufferWorker : public HolderWorker {
 public:
  using HolderWorker::HolderWorker;

 private:
  void Run() override {
    WithCpuIndex(*holder_, [&](const faiss::Index& index) {
      bytes_ = std::make_unique<std::vector<uint8_t>>(SerializeIndex(index));
    });
  }

  Napi::Value Result(Napi::Env env) override {
    std::vector<uint8_t>* bytes = bytes_.release();
    // The Buffer takes the vector's memory without a copy where the runtime
    // allows external buffers, and copies it where it does not.
    return Napi::Buffer<uint8_t>::NewOrCopy(
        env, bytes->data(), bytes->size(),
        [](Napi::Env, uint8_t*, std::vector<uint8_t>* owned) { delete owned; }, bytes);
  }

  std::unique_ptr<std::vector<uint8_t>> bytes_;
};

}  // namespace

Napi::Function NativeIndex::DefineClass(Napi::Env env) {
  return ObjectWrap<NativeIndex>::DefineClass(
      env, "NativeIndex",
      {
          StaticMethod<&NativeIndex::Create>("create"),
          StaticMethod<&NativeIndex::Read>("read"),
          StaticMethod<&NativeIndex::FromBuffer>("fromBuffer"),
          InstanceMethod<&NativeIndex::Train>("train"),
          InstanceMethod<&NativeIndex::Add>("add"),
          InstanceMethod<&NativeIndex::AddWithIds>("addWithIds"),
          InstanceMethod<&NativeIndex::Search>("search"),
          InstanceMethod<&NativeIndex::RemoveIds>("removeIds"),
          InstanceMethod<&NativeIndex::Reconstruct>("reconstruct"),
          InstanceMethod<&NativeIndex::ReconstructMany>("reconstructMany"),
          InstanceMethod<&NativeIndex::Write>("write"),
          InstanceMethod<&NativeIndex::ToBuffer>("toBuffer"),
          InstanceMethod<&NativeIndex::CopyTo>("copyTo"),
          InstanceMethod<&NativeIndex::Close>("close"),
          InstanceAccessor<&NativeIndex::GetClosed>("closed"),
          InstanceAccessor<&NativeIndex::GetNtotal>("ntotal"),
          InstanceAccessor<&NativeIndex::GetIsTrained>("isTrained"),
          InstanceMethod<&NativeIndex::GetInfo>("info"),
      });
}

NativeIndex::NativeIndex(const Napi::CallbackInfo& info) : ObjectWrap<NativeIndex>(info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsExternal() ||
      !info[0].As<Napi::External<std::shared_ptr<IndexHolder>>>().CheckTypeTag(&kHolderTag)) {
    ThrowJs(env, ErrorCode::InvalidArgument,
            "NativeIndex cannot be constructed directly; use create(), read() or fromBuffer()");
  }
  holder_ = *info[0].As<Napi::External<std::shared_ptr<IndexHolder>>>().Data();
}

Napi::Value NativeIndex::NewInstance(Napi::Env env, std::shared_ptr<IndexHolder> holder) {
  // The External only carries the pointer during the synchronous constructor
  // call below, which copies the shared_ptr.
  auto external = Napi::External<std::shared_ptr<IndexHolder>>::New(env, &holder);
  external.TypeTag(&kHolderTag);
  return GetInstanceData(env)->indexClass.New({external});
}

// An index whose lists are mapped from its file can be neither copied nor written: FAISS would
// copy or write the mapping's place, not the lists.
static void RequireCopyable(Napi::Env env, const IndexHolder& holder, const char* action) {
  if (holder.mapped) {
    ThrowJs(env, ErrorCode::Unsupported,
            std::string("cannot ") + action +
                " an index whose lists are mapped from its file: read the file again without "
                "mapped to change, copy or write it");
  }
}

// A shared read is the same index in every thread that read the file: none may change it under
// the others; nor may anyone change a mapped one.
static void RequireChangeable(Napi::Env env, const IndexHolder& holder, const char* action) {
  RequireCopyable(env, holder, action);
  if (holder.sharedRead) {
    ThrowJs(env, ErrorCode::Unsupported,
            std::string("cannot ") + action +
                " an index read shared (one copy for every thread that reads the file): read the "
                "file again without shared to change it");
  }
}

std::shared_ptr<IndexHolder> NativeIndex::Open(Napi::Env env) const {
  if (!holder_) ThrowJs(env, ErrorCode::Closed, "the index is closed");
  return holder_;
}

Napi::Value NativeIndex::Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int d = static_cast<int>(IntegerArg(info, 0, "dimension", 1, kMaxDimension));
  std::string description = StringArg(info, 1, "description");
  std::string metricName = StringArg(info, 2, "metric");
  if (metricName != "ip" && metricName != "l2") {
    ThrowJs(env, ErrorCode::InvalidArgument,
            "metric must be 'ip' or 'l2', not '" + metricName + "'");
  }
  bool withIds = BooleanArg(info, 3, "ids");
  Device device = ParseDevice(env, StringArg(info, 4, "device"));
  faiss::MetricType metric = metricName == "ip" ? faiss::METRIC_INNER_PRODUCT : faiss::METRIC_L2;
  return (new CreateWorker(env, d, description, metric, withIds, device))->Start();
}

Napi::Value NativeIndex::Read(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string path = StringArg(info, 0, "path");
  Device device = ParseDevice(env, StringArg(info, 1, "device"));
  bool allowPlain = OptionalBooleanArg(info, 2, "plainFaiss", false);
  bool shared = OptionalBooleanArg(info, 3, "shared", false);
  bool mapped = OptionalBooleanArg(info, 4, "mapped", false);
  if ((shared || mapped) && device != Device::Cpu) {
    ThrowJs(env, ErrorCode::InvalidArgument,
            std::string("only an index on the CPU is read ") + (shared ? "shared" : "mapped"));
  }
  return (new ReadWorker(env, path, device, allowPlain, shared, mapped))->Start();
}

Napi::Value NativeIndex::FromBuffer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Uint8Array buffer = BufferArg(info, 0, "buffer");
  Device device = ParseDevice(env, StringArg(info, 1, "device"));
  bool allowPlain = OptionalBooleanArg(info, 2, "plainFaiss", false);
  return (new FromBufferWorker(env, buffer, device, allowPlain))->Start();
}

Napi::Value NativeIndex::Train(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto holder = Open(env);
  RequireChangeable(env, *holder, "train");
  Napi::Float32Array vectors = Float32ArrayArg(info, 0, "vectors");
  int64_t rows = RowsOf(env, vectors, holder->dimension, "vectors");
  return (new TrainWorker(env, holder, vectors, rows))->Start();
}

Napi::Value NativeIndex::Add(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto holder = Open(env);
  RequireChangeable(env, *holder, "add vectors to");
  Napi::Float32Array vectors = Float32ArrayArg(info, 0, "vectors");
  int64_t rows = RowsOf(env, vectors, holder->dimension, "vectors");
  return (new AddWorker(env, holder, vectors, rows, nullptr))->Start();
}

Napi::Value NativeIndex::AddWithIds(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto holder = Open(env);
  RequireChangeable(env, *holder, "add vectors to");
  Napi::Float32Array vectors = Float32ArrayArg(info, 0, "vectors");
  int64_t rows = RowsOf(env, vectors, holder->dimension, "vectors");
  Napi::BigInt64Array ids = BigInt64ArrayArg(info, 1, "ids");
  if (static_cast<int64_t>(ids.ElementLength()) != rows) {
    ThrowJs(env, ErrorCode::InvalidArgument,
            "ids has " + std::to_string(ids.ElementLength()) + " entries for " +
                std::to_string(rows) + " vectors");
  }
  return (new AddWorker(env, holder, vectors, rows, ids.Data()))->Start();
}

Napi::Value NativeIndex::Search(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto holder = Open(env);
  Napi::Float32Array queries = Float32ArrayArg(info, 0, "queries");
  int64_t rows = RowsOf(env, queries, holder->dimension, "queries");
  int64_t k = IntegerArg(info, 1, "k", 1, kMaxK);
  SearchOptions options;
  options.efSearch = OptionalIntegerArg(info, 2, "efSearch", 1, 1 << 20, 0);
  options.nprobe = OptionalIntegerArg(info, 3, "nprobe", 1, 1 << 24, 0);
  if (options.efSearch > 0 && holder->kind != IndexKind::Hnsw) {
    ThrowJs(env, ErrorCode::InvalidArgument,
            "efSearch applies to HNSW indexes; this index is " + holder->description);
  }
  if (options.nprobe > 0 && holder->kind != IndexKind::Ivf) {
    ThrowJs(env, ErrorCode::InvalidArgument,
            "nprobe applies to IVF indexes; this index is " + holder->description);
  }
  // An optional set of ids the results may have (sorted, no repeats: the
  // worker checks), even empty: then every label is -1.
  Napi::BigInt64Array allowed;
  const bool restricted = !info[4].IsUndefined() && !info[4].IsNull();
  if (restricted) allowed = BigInt64ArrayArg(info, 4, "allowed");
  if (restricted && holder->onGpu) {
    // No faiss::gpu index reads SearchParameters::sel.
    ThrowJs(env, ErrorCode::Unsupported,
            "this index (" + holder->description +
                ") is on a GPU, and FAISS's GPU indexes cannot restrict a search to allowed ids: "
                "search the CPU index it was copied from, or a CPU copy (copyTo('cpu'))");
  }
  if (holder->onGpu) {
    // Checked here: past the limit FAISS fails deep in its GPU code.
    const int64_t limit = GpuMaxK();
    if (k > limit) {
      ThrowJs(env, ErrorCode::InvalidArgument,
              "k is " + std::to_string(k) + ", more than the " + std::to_string(limit) +
                  " neighbours a GPU index returns (FAISS's GPU limit); pass k <= " +
                  std::to_string(limit) + ", or search a CPU copy (copyTo('cpu'))");
    }
    if (options.nprobe > limit) {
      ThrowJs(env, ErrorCode::InvalidArgument,
              "nprobe is " + std::to_string(options.nprobe) + ", more than the " +
                  std::to_string(limit) + " lists a GPU index visits (FAISS's GPU limit); pass " +
                  "nprobe <= " + std::to_string(limit));
    }
  }
  // Checked here, before the outputs are allocated: the worker checks k
  // again under the lock, as an add or removal may run in between. With a
  // set of allowed ids, k may exceed ntotal: results are padded with -1.
  const int64_t total = holder->ntotal.load();
  if (!restricted && total == 0) {
    ThrowJs(env, ErrorCode::InvalidArgument, "cannot search: the index is empty");
  }
  if (!restricted && k > total) {
    ThrowJs(env, ErrorCode::InvalidArgument,
            "k is " + std::to_string(k) + " but the index holds only " + std::to_string(total) +
                " vectors; pass k <= ntotal");
  }
  if (rows > kMaxResults / k) {
    ThrowJs(env, ErrorCode::InvalidArgument,
            "nq·k is " + std::to_string(rows) + " queries × k " + std::to_string(k) +
                ", more than the " + std::to_string(kMaxResults) +
                " results one search may return; search in batches of at most " +
                std::to_string(kMaxResults / k) + " queries");
  }
  return (new SearchWorker(env, holder, queries, rows, k, options, allowed))->Start();
}

Napi::Value NativeIndex::RemoveIds(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto holder = Open(env);
  RequireChangeable(env, *holder, "remove vectors from");
  Napi::BigInt64Array ids = BigInt64ArrayArg(info, 0, "ids");
  return (new RemoveWorker(env, holder, ids))->Start();
}

Napi::Value NativeIndex::Reconstruct(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto holder = Open(env);
  if (!info[0].IsBigInt()) ThrowJs(env, ErrorCode::InvalidArgument, "id must be a bigint");
  bool lossless = false;
  int64_t id = info[0].As<Napi::BigInt>().Int64Value(&lossless);
  if (!lossless) ThrowJs(env, ErrorCode::InvalidArgument, "id does not fit in 64 bits");
  return (new ReconstructWorker(env, holder, id))->Start();
}

Napi::Value NativeIndex::ReconstructMany(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto holder = Open(env);
  Napi::BigInt64Array ids = BigInt64ArrayArg(info, 0, "ids");
  return (new ReconstructManyWorker(env, holder, ids))->Start();
}

Napi::Value NativeIndex::Write(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto holder = Open(env);
  RequireCopyable(env, *holder, "write");
  std::string path = StringArg(info, 0, "path");
  return (new WriteWorker(env, holder, path))->Start();
}

Napi::Value NativeIndex::ToBuffer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto holder = Open(env);
  RequireCopyable(env, *holder, "serialise");
  return (new ToBufferWorker(env, holder))->Start();
}

Napi::Value NativeIndex::CopyTo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto holder = Open(env);
  RequireCopyable(env, *holder, "copy");
  Device device = ParseDevice(env, StringArg(info, 0, "device"));
  return (new CopyWorker(env, holder, device))->Start();
}

Napi::Value NativeIndex::Close(const Napi::CallbackInfo& info) {
  // Work already queued keeps its own reference and completes; the FAISS index
  // is freed when the last of it finishes.
  holder_.reset();
  return info.Env().Undefined();
}

Napi::Value NativeIndex::GetClosed(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), !holder_);
}

Napi::Value NativeIndex::GetNtotal(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(Open(info.Env())->ntotal.load()));
}

Napi::Value NativeIndex::GetIsTrained(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), Open(info.Env())->trained.load());
}

Napi::Value NativeIndex::GetInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto holder = Open(env);
  Napi::Object out = Napi::Object::New(env);
  out.Set("dimension", holder->dimension);
  out.Set("metric", holder->innerProduct ? "ip" : "l2");
  out.Set("description", holder->description);
  out.Set("kind", IndexKindName(holder->kind));
  out.Set("ids", holder->idMap != nullptr);
  out.Set("supportsRemove", holder->supportsRemove);
  out.Set("device", holder->onGpu ? "gpu" : "cpu");
  out.Set("deviceReason", holder->deviceReason);
  out.Set("shared", holder->sharedRead);
  out.Set("mapped", holder->mapped);
  return out;
}

}  // namespace ocvector
