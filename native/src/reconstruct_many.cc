#include "reconstruct_many.h"

#include <faiss/IndexIDMap.h>
#include <faiss/IndexIVF.h>
#include <faiss/invlists/InvertedLists.h>

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "errors.h"

namespace ocvector {
namespace {

// Where each wanted id is asked for: a map walked once over the index's own
// ids, so that a call costs one pass over the index, whatever n is.
using Wanted = std::unordered_multimap<int64_t, size_t>;

Wanted WantedPlaces(const int64_t* ids, size_t n) {
  Wanted wanted;
  wanted.reserve(n);
  for (size_t i = 0; i < n; ++i) wanted.emplace(ids[i], i);
  return wanted;
}

// Copies a vector just decoded at place `first` to the other places that asked for the same id.
void FillRepeats(const Wanted& wanted, int64_t id, size_t first, size_t d, float* out,
                 uint8_t* found) {
  auto [begin, end] = wanted.equal_range(id);
  for (auto it = begin; it != end; ++it) {
    if (it->second == first) continue;
    std::copy(out + first * d, out + (first + 1) * d, out + it->second * d);
    found[it->second] = 1;
  }
}

}  // namespace

void ReconstructMany(const faiss::Index& index, const int64_t* ids, size_t n, float* out,
                     uint8_t* found) {
  const auto d = static_cast<size_t>(index.d);
  std::fill(out, out + n * d, 0.0f);
  std::fill(found, found + n, uint8_t{0});
  const Wanted wanted = WantedPlaces(ids, n);

  if (const auto* idMap = dynamic_cast<const faiss::IndexIDMap*>(&index)) {
    for (size_t row = 0; row < idMap->id_map.size(); ++row) {
      const int64_t id = idMap->id_map[row];
      auto it = wanted.find(id);
      if (it == wanted.end()) continue;
      idMap->index->reconstruct(static_cast<faiss::Index::idx_t>(row), out + it->second * d);
      found[it->second] = 1;
      FillRepeats(wanted, id, it->second, d, out, found);
    }
    return;
  }

  if (const auto* ivf = dynamic_cast<const faiss::IndexIVF*>(&index)) {
    for (size_t list = 0; list < ivf->nlist; ++list) {
      const size_t size = ivf->invlists->list_size(list);
      if (size == 0) continue;
      faiss::InvertedLists::ScopedIds listIds(ivf->invlists, list);
      for (size_t offset = 0; offset < size; ++offset) {
        const int64_t id = listIds[offset];
        auto it = wanted.find(id);
        if (it == wanted.end()) continue;
        ivf->reconstruct_from_offset(static_cast<int64_t>(list), static_cast<int64_t>(offset),
                                     out + it->second * d);
        found[it->second] = 1;
        FillRepeats(wanted, id, it->second, d, out, found);
      }
    }
    return;
  }

  throw NativeError(ErrorCode::Unsupported,
                    "reading vectors back by id needs an index with ids (create with ids: true) "
                    "or an IVF index");
}

}  // namespace ocvector
