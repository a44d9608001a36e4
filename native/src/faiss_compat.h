// Names that moved between FAISS releases: 1.7.3 (Debian 12) declares idx_t in
// faiss::Index, later releases at namespace level. Both are int64_t.
#pragma once

#include <faiss/Index.h>

#include <cstdint>

namespace ocvector {

using idx_t = int64_t;

}  // namespace ocvector
