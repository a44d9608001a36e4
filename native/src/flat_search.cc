#include "flat_search.h"

#include <faiss/Index.h>
#include <faiss/utils/distances.h>
#include <omp.h>

#include <algorithm>
#include <exception>
#include <limits>
#include <vector>

namespace ocvector {

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

  // Merge: best first (largest inner product, smallest L2), ties by smaller
  // label so the result does not depend on the number of slices.
  struct Candidate {
    float distance;
    idx_t label;
  };
  auto better = [innerProduct](const Candidate& a, const Candidate& b) {
    if (a.distance != b.distance)
      return innerProduct ? a.distance > b.distance : a.distance < b.distance;
    return a.label < b.label;
  };
  const float missing =
      innerProduct ? -std::numeric_limits<float>::max() : std::numeric_limits<float>::max();
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
      distances[out] = found ? candidates[j].distance : missing;
      labels[out] = found ? candidates[j].label : -1;
    }
  }
}

}  // namespace ocvector
