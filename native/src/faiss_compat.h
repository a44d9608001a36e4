// Names that moved between FAISS releases: 1.7.3 (Debian 12) declares idx_t in
// faiss::Index, later releases at namespace level. Both are int64_t.
// OCVECTOR_FAISS_AT_LEAST(major, minor, patch) tests the FAISS this is built
// against (the default build: Debian's 1.7.3; a GPU build: 1.15).
#pragma once

#include <faiss/Index.h>

#include <cstdint>

#define OCVECTOR_FAISS_AT_LEAST(major, minor, patch) \
  (FAISS_VERSION_MAJOR > (major) ||                  \
   (FAISS_VERSION_MAJOR == (major) &&                \
    (FAISS_VERSION_MINOR > (minor) ||                \
     (FAISS_VERSION_MINOR == (minor) && FAISS_VERSION_PATCH >= (patch)))))

namespace ocvector {

using idx_t = int64_t;

}  // namespace ocvector
