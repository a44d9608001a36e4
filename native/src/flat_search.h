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

// True when the sliced search pays for its thread start-up.
bool PrefersSlicedFlatSearch(const faiss::IndexFlat& flat, idx_t queries, int threads);

void SlicedFlatSearch(const faiss::IndexFlat& flat, idx_t queries, const float* x, idx_t k,
                      float* distances, idx_t* labels, int threads);

}  // namespace ocvector
