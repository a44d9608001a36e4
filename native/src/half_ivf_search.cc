#include "half_ivf_search.h"

#include <faiss/invlists/InvertedLists.h>
#include <faiss/utils/Heap.h>
#include <omp.h>

#include <algorithm>
#include <vector>

// The scan is x86's (F16C, AVX2, FMA); elsewhere FAISS's own serves these indexes.
#if defined(__x86_64__) || defined(__i386__)
#define OCVECTOR_HALF_SCAN 1
#include <immintrin.h>
#endif

namespace ocvector {
namespace {

using idx_t = faiss::Index::idx_t;

#ifdef OCVECTOR_HALF_SCAN

// Inner product of a float query with a vector of IEEE half-precision codes.
__attribute__((target("avx2,f16c,fma"))) float DotHalf(const float* query, const uint16_t* code,
                                                       size_t d) {
  __m256 sum0 = _mm256_setzero_ps();
  __m256 sum1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= d; i += 16) {
    const __m128i half0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(code + i));
    const __m128i half1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(code + i + 8));
    sum0 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i), _mm256_cvtph_ps(half0), sum0);
    sum1 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i + 8), _mm256_cvtph_ps(half1), sum1);
  }
  for (; i + 8 <= d; i += 8) {
    const __m128i half = _mm_loadu_si128(reinterpret_cast<const __m128i*>(code + i));
    sum0 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i), _mm256_cvtph_ps(half), sum0);
  }
  const __m256 sum = _mm256_add_ps(sum0, sum1);
  __m128 folded = _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps(sum, 1));
  folded = _mm_hadd_ps(folded, folded);
  folded = _mm_hadd_ps(folded, folded);
  float total = _mm_cvtss_f32(folded);
  for (; i < d; ++i) total += query[i] * _cvtsh_ss(code[i]);
  return total;
}

bool ProcessorConvertsHalves() {
  static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c") &&
                                __builtin_cpu_supports("fma");
  return supported;
}
#else
// Never called: HalfIvfSearchable answers nullptr on these processors.
float DotHalf(const float*, const uint16_t*, size_t) { return 0.0f; }
bool ProcessorConvertsHalves() { return false; }
#endif

// One query: the lists its coarse search chose, scanned into a heap of the k best.
void SearchOne(const faiss::IndexIVFScalarQuantizer& index, const float* query, const idx_t* lists,
               size_t nprobe, int64_t k, const faiss::IDSelector* allowed, float* distances,
               idx_t* labels) {
  using Heap = faiss::CMin<float, idx_t>;
  faiss::heap_heapify<Heap>(k, distances, labels);
  const size_t d = static_cast<size_t>(index.d);
  const faiss::InvertedLists& invlists = *index.invlists;
  for (size_t probe = 0; probe < nprobe; ++probe) {
    const idx_t list = lists[probe];
    if (list < 0) continue;  // fewer non-empty lists than nprobe
    const size_t size = invlists.list_size(list);
    if (size == 0) continue;
    faiss::InvertedLists::ScopedCodes codes(&invlists, list);
    faiss::InvertedLists::ScopedIds ids(&invlists, list);
    const auto* halves = reinterpret_cast<const uint16_t*>(codes.get());
    for (size_t j = 0; j < size; ++j) {
      const idx_t id = ids[j];
      if (allowed != nullptr && !allowed->is_member(id)) continue;
      const float score = DotHalf(query, halves + j * d, d);
      if (Heap::cmp(distances[0], score))
        faiss::heap_replace_top<Heap>(k, distances, labels, score, id);
    }
  }
  faiss::heap_reorder<Heap>(k, distances, labels);
}

}  // namespace

const faiss::IndexIVFScalarQuantizer* HalfIvfSearchable(const faiss::Index& inner) {
  const auto* ivf = dynamic_cast<const faiss::IndexIVFScalarQuantizer*>(&inner);
  if (ivf == nullptr || ivf->sq.qtype != faiss::ScalarQuantizer::QT_fp16 || ivf->by_residual ||
      ivf->metric_type != faiss::METRIC_INNER_PRODUCT || ivf->code_size != 2 * size_t(ivf->d)) {
    return nullptr;
  }
  return ProcessorConvertsHalves() ? ivf : nullptr;
}

void HalfIvfSearch(const faiss::IndexIVFScalarQuantizer& index, int64_t rows, const float* queries,
                   int64_t k, size_t nprobe, const faiss::IDSelector* allowed, int threads,
                   float* distances, int64_t* labels) {
  nprobe = std::min(std::max<size_t>(nprobe, 1), index.nlist);
  const size_t d = static_cast<size_t>(index.d);
  std::vector<idx_t> lists(static_cast<size_t>(rows) * nprobe);
  std::vector<float> coarse(lists.size());
  index.quantizer->search(rows, queries, static_cast<idx_t>(nprobe), coarse.data(), lists.data());
#pragma omp parallel for num_threads(threads) if (rows > 1)
  for (int64_t row = 0; row < rows; ++row) {
    const auto at = static_cast<size_t>(row);
    SearchOne(index, queries + at * d, lists.data() + at * nprobe, nprobe, k, allowed,
              distances + at * static_cast<size_t>(k), labels + at * static_cast<size_t>(k));
  }
}

}  // namespace ocvector
