#include "flat_search.h"

#include <faiss/Index.h>
#include <faiss/utils/Heap.h>
#include <faiss/utils/distances.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <limits>
#include <vector>

namespace ocvector {
namespace {

// Merges `slices` top-k lists per query (slice s's rows start at
// s * queries * k) into one list per query: best first (largest inner
// product, smallest L2), ties by smaller label, so that a result does not
// depend on how the rows were split.
void MergeSlices(const float* sliceDistances, const idx_t* sliceLabels, int slices, idx_t queries,
                 idx_t k, bool innerProduct, float* distances, idx_t* labels) {
  struct Candidate {
    float distance;
    idx_t label;
  };
  auto better = [innerProduct](const Candidate& a, const Candidate& b) {
    if (a.distance != b.distance)
      return innerProduct ? a.distance > b.distance : a.distance < b.distance;
    return a.label < b.label;
  };
  const size_t perSlice = static_cast<size_t>(queries) * static_cast<size_t>(k);
  std::vector<Candidate> candidates;
  candidates.reserve(static_cast<size_t>(k) * slices);
  for (idx_t q = 0; q < queries; ++q) {
    candidates.clear();
    for (int s = 0; s < slices; ++s) {
      const size_t offset = perSlice * s + static_cast<size_t>(q) * k;
      for (idx_t j = 0; j < k; ++j) {
        if (sliceLabels[offset + j] >= 0) {
          candidates.push_back({sliceDistances[offset + j], sliceLabels[offset + j]});
        }
      }
    }
    const size_t keep = std::min(candidates.size(), static_cast<size_t>(k));
    std::partial_sort(candidates.begin(), candidates.begin() + keep, candidates.end(), better);
    for (idx_t j = 0; j < k; ++j) {
      const size_t out = static_cast<size_t>(q) * k + j;
      const bool found = static_cast<size_t>(j) < keep;
      distances[out] = found ? candidates[j].distance : MissingDistance(innerProduct);
      labels[out] = found ? candidates[j].label : -1;
    }
  }
}

// Merges the sorted lists `more` into the sorted lists `into` (k per query),
// keeping the best k; on a tie the entry already in `into` stays first.
void MergeInto(float* intoDistances, idx_t* intoLabels, const float* moreDistances,
               const idx_t* moreLabels, idx_t queries, idx_t k, bool innerProduct) {
  std::vector<float> mergedDistances(static_cast<size_t>(k));
  std::vector<idx_t> mergedLabels(static_cast<size_t>(k));
  for (idx_t q = 0; q < queries; ++q) {
    float* aD = intoDistances + static_cast<size_t>(q) * k;
    idx_t* aL = intoLabels + static_cast<size_t>(q) * k;
    const float* bD = moreDistances + static_cast<size_t>(q) * k;
    const idx_t* bL = moreLabels + static_cast<size_t>(q) * k;
    idx_t a = 0, b = 0;
    for (idx_t j = 0; j < k; ++j) {
      const bool haveA = a < k && aL[a] >= 0;
      const bool haveB = b < k && bL[b] >= 0;
      const bool takeA =
          haveA && (!haveB || aD[a] == bD[b] || (innerProduct ? aD[a] > bD[b] : aD[a] < bD[b]));
      if (takeA) {
        mergedDistances[j] = aD[a];
        mergedLabels[j] = aL[a++];
      } else if (haveB) {
        mergedDistances[j] = bD[b];
        mergedLabels[j] = bL[b++];
      } else {
        mergedDistances[j] = MissingDistance(innerProduct);
        mergedLabels[j] = -1;
      }
    }
    std::copy(mergedDistances.begin(), mergedDistances.end(), aD);
    std::copy(mergedLabels.begin(), mergedLabels.end(), aL);
  }
}

// Top-k of each query over `rows` of `base`, by FAISS's own distance kernels,
// into heaps kept by FAISS's heap functions (C: CMin for inner product, CMax
// for L2). Rows outside, queries inside: a row is read from memory once for
// all the queries.
template <typename C>
void ScanRows(const float* base, size_t d, const idx_t* rows, size_t count, idx_t queries,
              const float* x, idx_t k, float* distances, idx_t* labels) {
  const size_t kk = static_cast<size_t>(k);
  for (idx_t q = 0; q < queries; ++q)
    faiss::heap_heapify<C>(kk, distances + q * kk, labels + q * kk);
  for (size_t r = 0; r < count; ++r) {
    const float* y = base + static_cast<size_t>(rows[r]) * d;
    for (idx_t q = 0; q < queries; ++q) {
      const float* xq = x + static_cast<size_t>(q) * d;
      const float distance =
          C::is_max ? faiss::fvec_L2sqr(xq, y, d) : faiss::fvec_inner_product(xq, y, d);
      float* heapDistances = distances + q * kk;
      idx_t* heapLabels = labels + q * kk;
      if (C::cmp(heapDistances[0], distance)) {
        faiss::heap_replace_top<C>(kk, heapDistances, heapLabels, distance, rows[r]);
      }
    }
  }
  for (idx_t q = 0; q < queries; ++q)
    faiss::heap_reorder<C>(kk, distances + q * kk, labels + q * kk);
}

void ScanRows(bool innerProduct, const float* base, size_t d, const idx_t* rows, size_t count,
              idx_t queries, const float* x, idx_t k, float* distances, idx_t* labels) {
  if (innerProduct) {
    ScanRows<faiss::CMin<float, idx_t>>(base, d, rows, count, queries, x, k, distances, labels);
  } else {
    ScanRows<faiss::CMax<float, idx_t>>(base, d, rows, count, queries, x, k, distances, labels);
  }
}

}  // namespace

float MissingDistance(bool innerProduct) {
  return innerProduct ? -std::numeric_limits<float>::max() : std::numeric_limits<float>::max();
}

// Below about 4 MB of vectors a single-threaded scan takes well under a
// millisecond and the slicing overhead is not worth it.
constexpr size_t kMinSlicedFloats = size_t(1) << 20;

// FAISS 1.14.2 splits the database across threads itself when there are
// fewer queries than threads, and that path assumes its own parallel region
// gets every thread it asks for. Inside one of ours (nesting off) it gets
// one, and each call then scans only the first 1/threads of its rows. From
// that version on, FAISS's own split is used instead of ours.
constexpr bool kFaissSplitsSingleQueries = OCVECTOR_FAISS_AT_LEAST(1, 14, 2);

bool PrefersSlicedFlatSearch(const faiss::IndexFlat& flat, idx_t queries, int threads) {
  return !kFaissSplitsSingleQueries && threads > 1 && queries < threads &&
         static_cast<size_t>(flat.ntotal) * static_cast<size_t>(flat.d) >= kMinSlicedFloats;
}

void SlicedFlatSearch(const faiss::IndexFlat& flat, idx_t queries, const float* x, idx_t k,
                      float* distances, idx_t* labels, int threads) {
  const idx_t total = flat.ntotal;
  const size_t d = flat.d;
  const float* base = flat.get_xb();
  const bool innerProduct = flat.metric_type == faiss::METRIC_INNER_PRODUCT;
  const int slices = threads;
  const size_t perSlice = static_cast<size_t>(queries) * static_cast<size_t>(k);
  std::vector<float> sliceDistances(perSlice * slices);
  std::vector<idx_t> sliceLabels(perSlice * slices);
  std::exception_ptr failure;

  // Exceptions must not leave an OpenMP region (that terminates the process).
#pragma omp parallel for num_threads(slices) schedule(static, 1)
  for (int s = 0; s < slices; ++s) {
    try {
      // One thread inside each slice, whatever FAISS does with the threads it
      // thinks it has: a result must not depend on the FAISS version.
      omp_set_num_threads(1);
      const idx_t begin = total * s / slices;
      const idx_t end = total * (s + 1) / slices;
      float* sd = sliceDistances.data() + perSlice * s;
      idx_t* sl = sliceLabels.data() + perSlice * s;
      const float* slice = base + static_cast<size_t>(begin) * d;
      if (innerProduct) {
        faiss::knn_inner_product(x, slice, d, queries, end - begin, k, sd, sl);
      } else {
        faiss::knn_L2sqr(x, slice, d, queries, end - begin, k, sd, sl);
      }
      for (size_t i = 0; i < perSlice; ++i) {
        if (sl[i] >= 0) sl[i] += begin;
      }
    } catch (...) {
#pragma omp critical
      failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);

  MergeSlices(sliceDistances.data(), sliceLabels.data(), slices, queries, k, innerProduct,
              distances, labels);
}

// Rows copied per block by the batched subset search: 16 MiB of floats (at
// least 1,024 rows), enough for BLAS to run at full speed.
constexpr size_t kSubsetBlockFloats = size_t(1) << 22;

void SubsetFlatSearch(const faiss::IndexFlat& flat, const idx_t* rows, size_t count, idx_t queries,
                      const float* x, idx_t k, float* distances, idx_t* labels, int threads) {
  const size_t d = flat.d;
  const float* base = flat.get_xb();
  const bool innerProduct = flat.metric_type == faiss::METRIC_INNER_PRODUCT;

  if (queries < faiss::distance_compute_blas_threshold) {
    // Few queries: distances one by one, as FAISS computes them for a
    // selector, but over the allowed rows only, split across threads.
    const int slices = threads > 1 && count * d >= kMinSlicedFloats ? threads : 1;
    if (slices == 1) {
      ScanRows(innerProduct, base, d, rows, count, queries, x, k, distances, labels);
      return;
    }
    const size_t perSlice = static_cast<size_t>(queries) * static_cast<size_t>(k);
    std::vector<float> sliceDistances(perSlice * slices);
    std::vector<idx_t> sliceLabels(perSlice * slices);
    // Nothing in a slice allocates or throws.
#pragma omp parallel for num_threads(slices) schedule(static, 1)
    for (int s = 0; s < slices; ++s) {
      const size_t begin = count * s / slices;
      const size_t end = count * (s + 1) / slices;
      ScanRows(innerProduct, base, d, rows + begin, end - begin, queries, x, k,
               sliceDistances.data() + perSlice * s, sliceLabels.data() + perSlice * s);
    }
    MergeSlices(sliceDistances.data(), sliceLabels.data(), slices, queries, k, innerProduct,
                distances, labels);
    return;
  }

  // Many queries: one product of matrices per block of allowed rows (FAISS's
  // BLAS search), blocks merged in row order.
  const size_t blockRows = std::min(count, std::max<size_t>(1024, kSubsetBlockFloats / d));
  std::vector<float> block(blockRows * d);
  const size_t results = static_cast<size_t>(queries) * static_cast<size_t>(k);
  std::vector<float> blockDistances;
  std::vector<idx_t> blockLabels;
  for (size_t start = 0; start < count; start += blockRows) {
    const size_t n = std::min(blockRows, count - start);
#pragma omp parallel for num_threads(threads) if (n * d >= kMinSlicedFloats)
    for (size_t i = 0; i < n; ++i) {
      std::memcpy(block.data() + i * d, base + static_cast<size_t>(rows[start + i]) * d,
                  d * sizeof(float));
    }
    const bool first = start == 0;
    if (!first && blockDistances.empty()) {
      blockDistances.resize(results);
      blockLabels.resize(results);
    }
    float* outDistances = first ? distances : blockDistances.data();
    idx_t* outLabels = first ? labels : blockLabels.data();
    if (innerProduct) {
      faiss::knn_inner_product(x, block.data(), d, queries, n, k, outDistances, outLabels);
    } else {
      faiss::knn_L2sqr(x, block.data(), d, queries, n, k, outDistances, outLabels);
    }
    for (size_t i = 0; i < results; ++i) {
      if (outLabels[i] >= 0) outLabels[i] = rows[start + static_cast<size_t>(outLabels[i])];
    }
    if (!first) {
      MergeInto(distances, labels, blockDistances.data(), blockLabels.data(), queries, k,
                innerProduct);
    }
  }
}

}  // namespace ocvector
