// Searches restricted to a set of ids (FaissIndex.search's `allowed`): the k
// nearest neighbours among the allowed vectors only, so that a search scoped to
// part of a shared index finds what an index of that part alone would find.
//
// The ids are translated to the labels the inner index uses (positions under
// an id map) and handed to FAISS as an IDSelector in SearchParameters::sel,
// except where scanning the allowed vectors exactly costs no more:
// - Flat: exact over the allowed rows only (flat_search.cc, SubsetFlatSearch);
// - HNSW with Flat storage: the same exact scan when the set is under 1/16 of
//   the index, where FAISS's filtered graph search loses recall; above it,
//   FAISS's graph search with the selector;
// - IVF: FAISS's search with the selector; every list is visited when that
//   computes no more distances than the unrestricted search would (allowed ≤
//   ntotal·nprobe/nlist), which makes the search exact over the set;
// - other index types: FAISS's search with the selector where FAISS accepts
//   one (UNSUPPORTED where it refuses).
// GPU indexes take no selector: the caller refuses before a worker starts.
#pragma once

#include <cstdint>
#include <vector>

#include "faiss_compat.h"
#include "index_holder.h"

namespace ocvector {

struct SearchOptions {
  int64_t efSearch = 0;  // 0: the index's own setting
  int64_t nprobe = 0;    // 0: the index's own setting
};

// Throws NativeError(InvalidArgument) unless `ids` are >= 0, ascending and
// without repeats (the facade sorts them; this guards direct calls).
void CheckAllowedIds(const std::vector<int64_t>& ids);

// The k nearest neighbours of each query among the vectors whose ids are in
// `allowed`, into row-major outputs of queries·k, padded with label -1 where
// fewer than k allowed vectors exist (k may exceed ntotal). Labels are the
// inner index's (positions under an id map; the caller maps them). Runs with
// the holder's lock held, on a CPU index.
void SearchAllowed(const IndexHolder& holder, const std::vector<int64_t>& allowed, idx_t queries,
                   const float* x, idx_t k, const SearchOptions& options, int threads,
                   float* distances, idx_t* labels);

}  // namespace ocvector
