// Exact search that uses every core for a single query.
//
// FAISS parallelises exhaustive search across queries, so one query scans the
// whole database on one core: 60 ms at 100,000 x 768 on this project's 2-core
// reference machine, where the scan is memory-bound and two cores are close to
// twice as fast. For fewer queries than threads, this splits the database into
// one contiguous slice per thread, runs FAISS's own kernels on each slice (so
// distances are bit-identical to IndexFlat::search), and merges the slices'
// top-k lists.
#pragma once

#include <faiss/IndexFlat.h>

#include "faiss_compat.h"

namespace ocvector {

// The distance FAISS reports for a missing result (label -1).
float MissingDistance(bool innerProduct);

// True when the sliced search pays for its thread start-up.
bool PrefersSlicedFlatSearch(const faiss::IndexFlat& flat, idx_t queries, int threads);

void SlicedFlatSearch(const faiss::IndexFlat& flat, idx_t queries, const float* x, idx_t k,
                      float* distances, idx_t* labels, int threads);

// Exact search over some rows of `flat` only: `rows` (sorted, each < ntotal)
// are the positions a result may have, and labels are positions. Cost grows
// with the rows, not with the index. Fewer queries than FAISS's BLAS threshold
// are answered with FAISS's distance kernels row by row, the rows split across
// threads; more are answered by FAISS's BLAS search over the rows copied into
// blocks. Missing results have label -1, as in FAISS.
void SubsetFlatSearch(const faiss::IndexFlat& flat, const idx_t* rows, size_t count, idx_t queries,
                      const float* x, idx_t k, float* distances, idx_t* labels, int threads);

}  // namespace ocvector
