// Persistence of an index: the ocvector container around FAISS's own
// serialisation, so that a truncated or damaged file or buffer is detected by a
// length and checksum test before FAISS parses a single byte of it.
//
// Container layout (little-endian), 32 bytes of header then the payload:
//   0  char[8]  magic "OCVECIDX"
//   8  u32      format version (1)
//   12 u32      flags (0)
//   16 u64      payload length in bytes
//   24 u64      XXH64 (seed 0) of the payload
//   32 ...      payload: faiss::write_index output
//
// Reading accepts a plain FAISS file or buffer (no magic), e.g. one written by
// faiss.write_index in Python, only when the caller opts in (`allowPlain`):
// FAISS's parser trusts its input, and unverified bytes can crash it. Only
// regular files are read (a FIFO would block the reading thread forever).
//
// The checksum finds damage, not tampering: anyone can compute it. Bytes that
// may come from anyone (a file that arrived with a clone, plain or in the
// container) are read only by the checking child process (src/native/
// plain-faiss.ts), which passes `allowPlain`; there a container's payload,
// like a plain file, may hold only the index types whose structure is checked.
#pragma once

#include <faiss/Index.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ocvector {

// Writes to `path` through a temporary file in the same directory, fsyncs it,
// renames it over `path`, and fsyncs the directory: a crash leaves either the
// old file or the new one, never a torn one. The file is private (0600).
void WriteIndexFile(const faiss::Index& index, const std::string& path);

// Checks that the fields of a parsed index agree with each other (dimensions,
// counts, sizes, graph links, list contents), so that no search, reconstruct
// or removal reads past an array: CORRUPT_INDEX otherwise. With
// `knownTypesOnly` an index or part whose type is not checked is refused
// (UNSUPPORTED); that is how plain FAISS files are read.
void CheckIndexStructure(const faiss::Index& index, const std::string& what, bool knownTypesOnly);

// `mapped`: the checksum pass is skipped (the caller knows the file is as its
// writer left it) and an IVF index's lists are memory-mapped from the file
// rather than read (the index is then read-only: IndexHolder::mapped).
std::unique_ptr<faiss::Index> ReadIndexFile(const std::string& path, bool allowPlain,
                                            bool mapped = false);

std::vector<uint8_t> SerializeIndex(const faiss::Index& index);

std::unique_ptr<faiss::Index> DeserializeIndex(const uint8_t* data, size_t size, bool allowPlain);

}  // namespace ocvector
