// What an index is, for the calls that depend on it (efSearch for HNSW,
// nprobe for IVF, removal for Flat and IVF), whether it is on the CPU or a GPU.
#pragma once

namespace ocvector {

enum class IndexKind { Flat, Hnsw, Ivf, Other };

const char* IndexKindName(IndexKind kind);

}  // namespace ocvector
