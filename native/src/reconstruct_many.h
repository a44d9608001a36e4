// The stored vectors of many ids at once. A rebuild of the FAISS file reads
// them back from the index it replaces (another type, a count that no longer
// fits) once the database no longer keeps its own copy of every vector.
// Nothing in the index changes (no direct map is made), so an index that is
// shared or mapped can be read too.
#pragma once

#include <faiss/Index.h>

#include <cstddef>
#include <cstdint>

namespace ocvector {

// Fills out[i·d, (i+1)·d) with the vector of ids[i] and sets found[i] to 1;
// for an id the index does not hold, leaves zeros and found[i] 0. A repeated
// id is filled at each place. Supports indexes with ids mapped (IDMap, IDMap2)
// over any index that reconstructs, and IVF indexes; throws NativeError
// UNSUPPORTED for anything else.
void ReconstructMany(const faiss::Index& index, const int64_t* ids, size_t n, float* out,
                     uint8_t* found);

}  // namespace ocvector
