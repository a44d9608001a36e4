// k-NN over an IVF index of half-precision codes kept without residuals
// (what the store plans past its threshold: index-plan.ts), by inner product,
// with the processor's half-to-float conversion (F16C) and fused multiply-add.
// FAISS 1.7.3 as Debian builds it decodes each half in portable code, which
// made such a search about three times slower than one over float32 lists;
// this one reads half the bytes of those and is faster than either.
#pragma once

#include <faiss/IndexScalarQuantizer.h>
#include <faiss/impl/IDSelector.h>

#include <cstdint>

namespace ocvector {

// The index as HalfIvfSearch takes it, or nullptr: an IVF of QT_fp16 codes,
// no residuals, inner product, on a processor with AVX2, F16C and FMA.
const faiss::IndexIVFScalarQuantizer* HalfIvfSearchable(const faiss::Index& inner);

// What faiss::IndexIVF::search answers for `rows` queries visiting `nprobe`
// lists (distances descending, padded with label -1), restricted to `allowed`
// ids when given. Queries are spread over `threads` threads.
void HalfIvfSearch(const faiss::IndexIVFScalarQuantizer& index, int64_t rows, const float* queries,
                   int64_t k, size_t nprobe, const faiss::IDSelector* allowed, int threads,
                   float* distances, int64_t* labels);

}  // namespace ocvector
