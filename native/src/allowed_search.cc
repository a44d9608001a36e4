#include "allowed_search.h"

#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIDMap.h>
#include <faiss/IndexIVF.h>
#include <faiss/impl/FaissException.h>
#include <faiss/impl/HNSW.h>
#include <faiss/impl/IDSelector.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>

#include "errors.h"
#include "flat_search.h"
#include "half_ivf_search.h"

namespace ocvector {
namespace {

// HNSW: a set under this share of the index (1/16) is scanned exactly. FAISS's
// graph search with a selector walks the whole graph but keeps only allowed
// nodes; measured at 100,000 × 768 (efSearch 64), its recall@10 was 0.94 for
// 10% of the index, 0.78 for 1% and 0.08 for 0.1%, while an exact scan of 1%
// took about as long as one graph search (docs/performance.md).
constexpr size_t kHnswExactShare = 16;

// A bitmap selector when it takes at most 8 bytes per vector plus 1 MiB;
// FAISS's hashed IDSelectorBatch for ids spread wider (an IVF numbered with
// large ids).
constexpr uint64_t kBitmapSpareBits = uint64_t(1) << 23;

// The allowed ids as the inner index numbers its vectors.
struct AllowedLabels {
  std::vector<idx_t> labels;  // ascending
  // Every label is a vector of the index. False for an IVF without an id map,
  // whose labels are the caller's ids: some may not be in it.
  bool allPresent = true;
};

AllowedLabels ToLabels(const IndexHolder& holder, const std::vector<int64_t>& ids) {
  AllowedLabels out;
  const idx_t total = holder.inner->ntotal;
  if (holder.idMap != nullptr) {
    // Under an id map the inner index numbers its vectors by position in the map.
    if (auto* map2 = dynamic_cast<const faiss::IndexIDMap2*>(holder.idMap)) {
      out.labels.reserve(std::min(ids.size(), static_cast<size_t>(total)));
      for (const int64_t id : ids) {
        auto found = map2->rev_map.find(id);
        if (found != map2->rev_map.end() && found->second >= 0 && found->second < total) {
          out.labels.push_back(found->second);
        }
      }
      std::sort(out.labels.begin(), out.labels.end());
    } else {
      const std::vector<idx_t>& map = holder.idMap->id_map;
      const size_t entries = std::min(map.size(), static_cast<size_t>(total));
      for (size_t i = 0; i < entries; ++i) {
        if (std::binary_search(ids.begin(), ids.end(), map[i])) out.labels.push_back(i);
      }
    }
    return out;
  }
  if (holder.kind == IndexKind::Ivf) {
    out.labels.assign(ids.begin(), ids.end());
    out.allPresent = false;
    return out;
  }
  // Other indexes number their vectors 0 to ntotal-1.
  out.labels.assign(ids.begin(), std::lower_bound(ids.begin(), ids.end(), total));
  return out;
}

// An IDSelector over the labels: one bit per label up to the largest, or a hash set.
class Selector {
 public:
  Selector(const std::vector<idx_t>& labels, idx_t total) {
    const uint64_t bits = labels.empty() ? 0 : static_cast<uint64_t>(labels.back()) + 1;
    if (bits <= static_cast<uint64_t>(total) * 64 + kBitmapSpareBits) {
      bitmap_.assign(static_cast<size_t>((bits + 7) / 8), 0);
      for (const idx_t label : labels) bitmap_[label >> 3] |= uint8_t(1) << (label & 7);
      selector_ = std::make_unique<faiss::IDSelectorBitmap>(bitmap_.size(), bitmap_.data());
    } else {
      selector_ = std::make_unique<faiss::IDSelectorBatch>(labels.size(), labels.data());
    }
  }

  faiss::IDSelector* get() const { return selector_.get(); }

 private:
  std::vector<uint8_t> bitmap_;
  std::unique_ptr<faiss::IDSelector> selector_;
};

// Keeps, in each row, only the labels the selector allows (in order), padded
// with -1. FAISS honours the selector in every index type that accepts one;
// this makes sure no other vector ever comes back.
void KeepSelected(const faiss::IDSelector& selector, idx_t queries, idx_t k, bool innerProduct,
                  float* distances, idx_t* labels) {
  for (idx_t q = 0; q < queries; ++q) {
    float* rowDistances = distances + q * k;
    idx_t* rowLabels = labels + q * k;
    idx_t kept = 0;
    for (idx_t j = 0; j < k; ++j) {
      if (rowLabels[j] < 0 || !selector.is_member(rowLabels[j])) continue;
      rowDistances[kept] = rowDistances[j];
      rowLabels[kept++] = rowLabels[j];
    }
    for (; kept < k; ++kept) {
      rowDistances[kept] = MissingDistance(innerProduct);
      rowLabels[kept] = -1;
    }
  }
}

// FAISS's own search with the selector in `params`.
void SearchWithSelector(const IndexHolder& holder, const faiss::SearchParameters& params,
                        const Selector& selector, idx_t queries, const float* x, idx_t k,
                        float* distances, idx_t* labels) {
  try {
    holder.inner->search(queries, x, k, distances, labels, &params);
  } catch (const faiss::FaissException& e) {
    std::string reason = StripFaissLocation(e.msg);
    // FAISS's formatted messages end with the NUL of their buffer.
    while (!reason.empty() &&
           (reason.back() == '\0' || std::isspace(static_cast<unsigned char>(reason.back())))) {
      reason.pop_back();
    }
    throw NativeError(ErrorCode::Unsupported,
                      "this index (" + holder.description +
                          ") cannot restrict a search to allowed ids: FAISS refuses a selector "
                          "for it (" +
                          reason + "); use a Flat, HNSW or IVF index");
  }
  KeepSelected(*selector.get(), queries, k, holder.innerProduct, distances, labels);
}

// Searches with k no larger than the allowed vectors (or ntotal).
void Search(const IndexHolder& holder, const std::vector<idx_t>& labels, idx_t queries,
            const float* x, idx_t k, const SearchOptions& options, int threads, float* distances,
            idx_t* labels_out) {
  const faiss::Index& inner = *holder.inner;
  const idx_t total = inner.ntotal;
  if (auto* flat = dynamic_cast<const faiss::IndexFlat*>(&inner)) {
    SubsetFlatSearch(*flat, labels.data(), labels.size(), queries, x, k, distances, labels_out,
                     threads);
    return;
  }
  if (auto* hnsw = dynamic_cast<const faiss::IndexHNSW*>(&inner)) {
    auto* storage = dynamic_cast<const faiss::IndexFlat*>(hnsw->storage);
    if (storage != nullptr && labels.size() * kHnswExactShare <= static_cast<size_t>(total)) {
      SubsetFlatSearch(*storage, labels.data(), labels.size(), queries, x, k, distances, labels_out,
                       threads);
      return;
    }
    Selector selector(labels, total);
    faiss::SearchParametersHNSW params;
    // The index's value (the caller set it there when the search asked for
    // another one): a default-constructed parameter would override it in
    // FAISS versions that read it.
    params.efSearch = hnsw->hnsw.efSearch;
    params.sel = selector.get();
    SearchWithSelector(holder, params, selector, queries, x, k, distances, labels_out);
    return;
  }
  Selector selector(labels, total);
  if (auto* ivf = dynamic_cast<const faiss::IndexIVF*>(&inner)) {
    faiss::SearchParametersIVF params;
    size_t nprobe = options.nprobe > 0 ? static_cast<size_t>(options.nprobe) : ivf->nprobe;
    nprobe = std::min(std::max<size_t>(nprobe, 1), ivf->nlist);
    // Visiting every list scans the allowed vectors exactly; it costs no more
    // distances than the unrestricted search when the set is at most the
    // share of the index that nprobe lists hold.
    const double share = static_cast<double>(nprobe) / static_cast<double>(ivf->nlist);
    if (static_cast<double>(labels.size()) <= share * static_cast<double>(total)) {
      nprobe = ivf->nlist;
    }
    if (const auto* halves = holder.onGpu ? nullptr : HalfIvfSearchable(inner)) {
      HalfIvfSearch(*halves, queries, x, k, nprobe, selector.get(), threads, distances, labels_out);
      return;
    }
    params.nprobe = nprobe;
    params.sel = selector.get();
    SearchWithSelector(holder, params, selector, queries, x, k, distances, labels_out);
    return;
  }
  faiss::SearchParameters params;
  params.sel = selector.get();
  SearchWithSelector(holder, params, selector, queries, x, k, distances, labels_out);
}

}  // namespace

void CheckAllowedIds(const std::vector<int64_t>& ids) {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0) {
      throw NativeError(
          ErrorCode::InvalidArgument,
          "allowed[" + std::to_string(i) + "] is " + std::to_string(ids[i]) + "; ids must be >= 0");
    }
    if (i > 0 && ids[i] <= ids[i - 1]) {
      throw NativeError(ErrorCode::InvalidArgument,
                        "allowed must be sorted ascending without repeats: allowed[" +
                            std::to_string(i) + "] is " + std::to_string(ids[i]) +
                            " after allowed[" + std::to_string(i - 1) + "] " +
                            std::to_string(ids[i - 1]));
    }
  }
}

void SearchAllowed(const IndexHolder& holder, const std::vector<int64_t>& allowed, idx_t queries,
                   const float* x, idx_t k, const SearchOptions& options, int threads,
                   float* distances, idx_t* labels) {
  const size_t results = static_cast<size_t>(queries) * static_cast<size_t>(k);
  std::fill(distances, distances + results, MissingDistance(holder.innerProduct));
  std::fill(labels, labels + results, idx_t(-1));
  const AllowedLabels allowedLabels = ToLabels(holder, allowed);
  const idx_t total = holder.inner->ntotal;
  if (allowedLabels.labels.empty() || total == 0) return;

  // FAISS is asked for no more neighbours than can exist; the rest stays -1.
  idx_t reachable = total;
  if (allowedLabels.allPresent) {
    reachable = std::min(reachable, static_cast<idx_t>(allowedLabels.labels.size()));
  }
  const idx_t kSearch = std::min(k, reachable);
  if (kSearch == k) {
    Search(holder, allowedLabels.labels, queries, x, k, options, threads, distances, labels);
    return;
  }
  const size_t found = static_cast<size_t>(queries) * static_cast<size_t>(kSearch);
  std::vector<float> foundDistances(found);
  std::vector<idx_t> foundLabels(found);
  Search(holder, allowedLabels.labels, queries, x, kSearch, options, threads, foundDistances.data(),
         foundLabels.data());
  for (idx_t q = 0; q < queries; ++q) {
    std::copy_n(foundDistances.data() + q * kSearch, kSearch, distances + q * k);
    std::copy_n(foundLabels.data() + q * kSearch, kSearch, labels + q * k);
  }
}

}  // namespace ocvector
