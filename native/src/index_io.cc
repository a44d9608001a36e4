#include "index_io.h"

#include <cxxabi.h>
#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIDMap.h>
#include <faiss/IndexIVF.h>
#include <faiss/IndexIVFFlat.h>
#include <faiss/IndexIVFPQ.h>
#include <faiss/IndexPQ.h>
#include <faiss/IndexPreTransform.h>
#include <faiss/IndexScalarQuantizer.h>
#include <faiss/VectorTransform.h>
#include <faiss/impl/io.h>
#include <faiss/index_io.h>
#include <faiss/invlists/DirectMap.h>
#include <faiss/invlists/InvertedLists.h>
#include <faiss/invlists/OnDiskInvertedLists.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <typeinfo>

#include "errors.h"
#include "faiss_compat.h"
#include "xxhash64.h"

namespace ocvector {
namespace {

constexpr char kMagic[8] = {'O', 'C', 'V', 'E', 'C', 'I', 'D', 'X'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderSize = 32;

struct Header {
  uint32_t version = kFormatVersion;
  uint32_t flags = 0;
  uint64_t payloadLength = 0;
  uint64_t checksum = 0;
};

void EncodeHeader(const Header& header, uint8_t* out) {
  std::memcpy(out, kMagic, 8);
  std::memcpy(out + 8, &header.version, 4);
  std::memcpy(out + 12, &header.flags, 4);
  std::memcpy(out + 16, &header.payloadLength, 8);
  std::memcpy(out + 24, &header.checksum, 8);
}

bool HasMagic(const uint8_t* data, size_t size) {
  return size >= sizeof(kMagic) && std::memcmp(data, kMagic, sizeof(kMagic)) == 0;
}

Header DecodeHeader(const uint8_t* data, size_t size, const std::string& what) {
  if (size < kHeaderSize) {
    throw NativeError(ErrorCode::Corrupt, what + " is truncated: the header is incomplete");
  }
  Header header;
  std::memcpy(&header.version, data + 8, 4);
  std::memcpy(&header.flags, data + 12, 4);
  std::memcpy(&header.payloadLength, data + 16, 8);
  std::memcpy(&header.checksum, data + 24, 8);
  if (header.version != kFormatVersion) {
    throw NativeError(ErrorCode::Corrupt,
                      what + " has container version " + std::to_string(header.version) +
                          ", this build reads version " + std::to_string(kFormatVersion));
  }
  return header;
}

std::string SystemError(const std::string& action, const std::string& path) {
  return action + " " + path + ": " + std::strerror(errno);
}

// Streams FAISS's serialisation to a FILE while hashing it.
struct HashingFileWriter : faiss::IOWriter {
  explicit HashingFileWriter(FILE* file) : file(file) {}
  size_t operator()(const void* ptr, size_t size, size_t nitems) override {
    size_t written = std::fwrite(ptr, size, nitems, file);
    hash.Update(ptr, size * written);
    length += size * written;
    return written;
  }
  FILE* file;
  Xxh64 hash;
  uint64_t length = 0;
};

// Appends FAISS's serialisation to a byte vector (after a reserved header).
struct VectorAppendWriter : faiss::IOWriter {
  explicit VectorAppendWriter(std::vector<uint8_t>& out) : out(out) {}
  size_t operator()(const void* ptr, size_t size, size_t nitems) override {
    const uint8_t* bytes = static_cast<const uint8_t*>(ptr);
    out.insert(out.end(), bytes, bytes + size * nitems);
    return nitems;
  }
  std::vector<uint8_t>& out;
};

// Reads from memory that this reader does not own.
struct SpanReader : faiss::IOReader {
  SpanReader(const uint8_t* data, size_t size) : data(data), size(size) {}
  size_t operator()(void* ptr, size_t itemSize, size_t nitems) override {
    if (itemSize == 0 || pos >= size) return 0;
    size_t available = (size - pos) / itemSize;
    size_t count = nitems < available ? nitems : available;
    std::memcpy(ptr, data + pos, count * itemSize);
    pos += count * itemSize;
    return count;
  }
  const uint8_t* data;
  size_t size;
  size_t pos = 0;
};

// ---------------------------------------------------------------------------
// The structure of a loaded index. FAISS's parser fills its fields from the
// bytes and its search code trusts them: a size, an id or a dimension that
// does not agree with the rest (an id map of d = 1 around a d = 8 index, an
// HNSW link past the last vector, a scalar quantizer of unknown type) is read
// past an array's end at search time. Every field that search, reconstruct or
// removal indexes with is checked here against the others; what fails is
// CORRUPT_INDEX. With `knownTypesOnly` (plain FAISS files) an index type whose
// fields are not checked here is refused (UNSUPPORTED) rather than trusted.

constexpr int64_t kMaxCheckedDimension = 1 << 16;  // the facade's MAX_DIMENSION
constexpr int kMaxSearchBreadth = 1 << 20;         // efSearch and friends

// "faiss::IndexLSH" rather than the mangled "N5faiss8IndexLSHE".
std::string TypeName(const std::type_info& type) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string name = status == 0 && demangled != nullptr ? demangled : type.name();
  std::free(demangled);
  return name;
}

class StructureCheck {
 public:
  StructureCheck(const std::string& what, bool knownTypesOnly)
      : what_(what), knownTypesOnly_(knownTypesOnly) {}

  void Index(const faiss::Index& index, const std::string& role) {
    Common(index, role);
    const std::type_info& type = typeid(index);
    if (type == typeid(faiss::IndexIDMap) || type == typeid(faiss::IndexIDMap2)) {
      IdMap(static_cast<const faiss::IndexIDMap&>(index), role);
    } else if (type == typeid(faiss::IndexFlat) || type == typeid(faiss::IndexFlatL2) ||
               type == typeid(faiss::IndexFlatIP)) {
      Codes(static_cast<const faiss::IndexFlatCodes&>(index), index.d * sizeof(float), role);
    } else if (type == typeid(faiss::IndexPQ)) {
      Pq(static_cast<const faiss::IndexPQ&>(index), role);
    } else if (type == typeid(faiss::IndexScalarQuantizer)) {
      const auto& sq = static_cast<const faiss::IndexScalarQuantizer&>(index);
      Codes(sq, ScalarQuantizer(sq.sq, index, role), role);
    } else if (type == typeid(faiss::IndexHNSWFlat) || type == typeid(faiss::IndexHNSWPQ) ||
               type == typeid(faiss::IndexHNSWSQ)) {
      Hnsw(static_cast<const faiss::IndexHNSW&>(index), role);
    } else if (type == typeid(faiss::IndexIVFFlat)) {
      Ivf(static_cast<const faiss::IndexIVF&>(index), index.d * sizeof(float), role);
    } else if (type == typeid(faiss::IndexIVFPQ)) {
      const auto& ivfpq = static_cast<const faiss::IndexIVFPQ&>(index);
      ProductQuantizer(ivfpq.pq, index, role);
      if ((ivfpq.use_precomputed_table == 1 || ivfpq.use_precomputed_table == 2) &&
          ivfpq.precomputed_table.size() < ivfpq.nlist * ivfpq.pq.M * ivfpq.pq.ksub) {
        Fail(role + "'s precomputed table is too small");
      }
      Ivf(ivfpq, ivfpq.pq.code_size, role);
    } else if (type == typeid(faiss::IndexIVFScalarQuantizer)) {
      const auto& ivfsq = static_cast<const faiss::IndexIVFScalarQuantizer&>(index);
      Ivf(ivfsq, ScalarQuantizer(ivfsq.sq, index, role), role);
    } else if (type == typeid(faiss::IndexPreTransform)) {
      PreTransform(static_cast<const faiss::IndexPreTransform&>(index), role);
    } else if (knownTypesOnly_) {
      throw NativeError(ErrorCode::Unsupported,
                        what_ +
                            " holds a FAISS index of a type whose structure this library "
                            "does not check (" +
                            TypeName(type) + " as " + role +
                            "), so it is not loaded from a plain FAISS "
                            "file; supported: Flat, PQ, SQ, HNSW (Flat, PQ, SQ), IVF (Flat, "
                            "PQ, SQ), pre-transforms, under an optional IDMap or IDMap2");
    }
  }

 private:
  [[noreturn]] void Fail(const std::string& detail) const {
    throw NativeError(ErrorCode::Corrupt, what_ + " is damaged: " + detail);
  }

  static std::string N(uint64_t value) { return std::to_string(value); }
  static std::string N(int64_t value) { return std::to_string(value); }
  static std::string N(int value) { return std::to_string(value); }

  void Common(const faiss::Index& index, const std::string& role) {
    if (index.d < 1 || index.d > kMaxCheckedDimension) {
      Fail(role + " has dimension " + N(static_cast<int64_t>(index.d)) +
           " (this library handles 1 to " + N(kMaxCheckedDimension) + ")");
    }
    if (index.ntotal < 0) Fail(role + " holds a negative number of vectors");
    if (index.ntotal > 0 && !index.is_trained) Fail(role + " holds vectors but is not trained");
    if (index.metric_type != faiss::METRIC_L2 && index.metric_type != faiss::METRIC_INNER_PRODUCT) {
      throw NativeError(ErrorCode::Unsupported, what_ + " uses FAISS metric " +
                                                    N(static_cast<int>(index.metric_type)) +
                                                    "; this library handles inner product and L2");
    }
    if (!metricSeen_) {
      metric_ = index.metric_type;
      metricSeen_ = true;
    }
  }

  // A part that computes the distances the index reports (storage, codes)
  // must use the metric the index reports.
  void SameMetric(const faiss::Index& part, const std::string& role) const {
    if (part.metric_type != metric_) Fail(role + " uses another metric than the index");
  }

  void Child(const faiss::Index* child, const std::string& role, int64_t expectedD) {
    if (child == nullptr) Fail(role + " is missing");
    if (child->d != expectedD) {
      Fail(role + " has dimension " + N(static_cast<int64_t>(child->d)) + ", the index around it " +
           N(expectedD));
    }
    Index(*child, role);
  }

  void IdMap(const faiss::IndexIDMap& idMap, const std::string& role) {
    Child(idMap.index, "the index under the id map", idMap.d);
    SameMetric(*idMap.index, "the index under the id map");
    const size_t entries = idMap.id_map.size();
    if (static_cast<int64_t>(entries) != idMap.index->ntotal ||
        idMap.ntotal != idMap.index->ntotal) {
      Fail("its id map has " + N(static_cast<uint64_t>(entries)) + " entries for " +
           N(static_cast<int64_t>(idMap.index->ntotal)) + " vectors");
    }
    const auto* idMap2 = dynamic_cast<const faiss::IndexIDMap2*>(&idMap);
    if (idMap2 != nullptr && idMap2->rev_map.size() != entries)
      Fail("its id map holds duplicate ids");
    for (int64_t id : idMap.id_map) {
      if (id < 0) Fail("its id map holds a negative id");
    }
    // Inverted lists under an id map hold positions in the map, which removal
    // and search use as indexes into it. Checked for plain files only: ocvector
    // files written after a removal by releases before the renumbering in
    // faiss_index.cc hold stale positions, which search bounds-checks and
    // removal refuses; they are still read.
    if (const auto* ivf = dynamic_cast<const faiss::IndexIVF*>(idMap.index)) {
      if (knownTypesOnly_) ListIdsBelow(*ivf, static_cast<int64_t>(entries));
    }
  }

  void Codes(const faiss::IndexFlatCodes& index, size_t codeSize, const std::string& role) {
    if (index.code_size != codeSize) {
      Fail(role + " stores " + N(static_cast<uint64_t>(index.code_size)) + " bytes per vector, " +
           N(static_cast<uint64_t>(codeSize)) + " expected");
    }
    if (index.codes.size() != static_cast<size_t>(index.ntotal) * codeSize) {
      Fail(role + " holds " + N(static_cast<uint64_t>(index.codes.size())) +
           " bytes of codes for " + N(static_cast<int64_t>(index.ntotal)) + " vectors of " +
           N(static_cast<uint64_t>(codeSize)) + " bytes");
    }
  }

  void ProductQuantizer(const faiss::ProductQuantizer& pq, const faiss::Index& index,
                        const std::string& role) {
    const std::string name = role + "'s product quantizer";
    if (pq.d != static_cast<size_t>(index.d)) Fail(name + " has another dimension than the index");
    if (pq.M < 1 || pq.d % pq.M != 0 || pq.dsub != pq.d / pq.M) {
      Fail(name + " splits " + N(static_cast<uint64_t>(pq.d)) + " dimensions into " +
           N(static_cast<uint64_t>(pq.M)) + " parts");
    }
    if (pq.nbits < 1 || pq.nbits > 16 || pq.ksub != (size_t(1) << pq.nbits)) {
      Fail(name + " has " + N(static_cast<uint64_t>(pq.nbits)) +
           " bits per code (1 to 16 expected)");
    }
    if (pq.code_size != (pq.M * pq.nbits + 7) / 8) Fail(name + " has the wrong code size");
    if (index.is_trained && pq.centroids.size() != pq.d * pq.ksub) {
      Fail(name + " has " + N(static_cast<uint64_t>(pq.centroids.size())) + " centroid values, " +
           N(static_cast<uint64_t>(pq.d * pq.ksub)) + " expected");
    }
  }

  void Pq(const faiss::IndexPQ& index, const std::string& role) {
    ProductQuantizer(index.pq, index, role);
    if (index.search_type < faiss::IndexPQ::ST_PQ ||
        index.search_type > faiss::IndexPQ::ST_polysemous_generalize) {
      Fail(role + " has an unknown search type");
    }
    Codes(index, index.pq.code_size, role);
  }

  // Returns the code size the quantizer's type and dimension imply.
  size_t ScalarQuantizer(const faiss::ScalarQuantizer& sq, const faiss::Index& index,
                         const std::string& role) {
    const std::string name = role + "'s scalar quantizer";
    // Types known to every supported FAISS release; a type FAISS does not
    // know aborts the process from inside a parallel search.
    if (sq.qtype < faiss::ScalarQuantizer::QT_8bit || sq.qtype > faiss::ScalarQuantizer::QT_6bit) {
      Fail(name + " has unknown type " + N(static_cast<int>(sq.qtype)));
    }
    if (sq.d != static_cast<size_t>(index.d)) Fail(name + " has another dimension than the index");
    const faiss::ScalarQuantizer reference(sq.d, sq.qtype);
    if (sq.code_size != reference.code_size || sq.bits != reference.bits) {
      Fail(name + " has the wrong code size");
    }
    size_t trained = 0;  // range values the codec reads
    switch (sq.qtype) {
      case faiss::ScalarQuantizer::QT_8bit:
      case faiss::ScalarQuantizer::QT_4bit:
      case faiss::ScalarQuantizer::QT_6bit: trained = 2 * sq.d; break;
      case faiss::ScalarQuantizer::QT_8bit_uniform:
      case faiss::ScalarQuantizer::QT_4bit_uniform: trained = 2; break;
      default: break;
    }
    if (index.is_trained && sq.trained.size() < trained) {
      Fail(name + " has " + N(static_cast<uint64_t>(sq.trained.size())) + " range values, " +
           N(static_cast<uint64_t>(trained)) + " expected");
    }
    return reference.code_size;
  }

  void Hnsw(const faiss::IndexHNSW& index, const std::string& role) {
    Child(index.storage, role + "'s storage", index.d);
    SameMetric(*index.storage, role + "'s storage");
    if (index.storage->ntotal != index.ntotal)
      Fail(role + "'s storage holds another number of vectors");
    const faiss::HNSW& graph = index.hnsw;
    const std::string name = role + "'s graph";
    if (graph.efSearch < 1 || graph.efSearch > kMaxSearchBreadth || graph.efConstruction < 1 ||
        graph.efConstruction > kMaxSearchBreadth) {
      Fail(name + " has out-of-range search parameters");
    }
#if !OCVECTOR_FAISS_AT_LEAST(1, 9, 0)
    // HNSW::upper_beam went in FAISS 1.9.
    if (graph.upper_beam < 1 || graph.upper_beam > kMaxSearchBreadth) {
      Fail(name + " has out-of-range search parameters");
    }
#endif
    // cum_nneighbor_per_level[l]: links stored before level l (0 at level 0).
    const auto& cumulative = graph.cum_nneighbor_per_level;
    if (cumulative.empty() || cumulative[0] != 0) Fail(name + " has no level table");
    for (size_t l = 1; l < cumulative.size(); ++l) {
      if (cumulative[l] < cumulative[l - 1]) Fail(name + "'s level table decreases");
    }
    const int maxLevels = static_cast<int>(cumulative.size()) - 1;
    const size_t n = static_cast<size_t>(index.ntotal);
    if (graph.levels.size() != n || graph.offsets.size() != n + 1 || graph.offsets[0] != 0) {
      Fail(name + " describes " + N(static_cast<uint64_t>(graph.levels.size())) + " nodes for " +
           N(static_cast<uint64_t>(n)) + " vectors");
    }
    for (size_t i = 0; i < n; ++i) {
      const int level = graph.levels[i];
      if (level < 1 || level > maxLevels) {
        Fail(name + " puts vector " + N(static_cast<uint64_t>(i)) + " on level " + N(level));
      }
      if (graph.offsets[i + 1] < graph.offsets[i] ||
          graph.offsets[i + 1] - graph.offsets[i] != static_cast<size_t>(cumulative[level])) {
        Fail(name + " has a wrong link count for vector " + N(static_cast<uint64_t>(i)));
      }
    }
    if (graph.offsets[n] != graph.neighbors.size()) {
      Fail(name + " has " + N(static_cast<uint64_t>(graph.neighbors.size())) + " links, " +
           N(static_cast<uint64_t>(graph.offsets[n])) + " expected");
    }
    const auto* links = graph.neighbors.data();
    for (size_t j = 0; j < graph.neighbors.size(); ++j) {
      if (links[j] < -1 || static_cast<int64_t>(links[j]) >= index.ntotal) {
        Fail(name + " links to vector " + N(static_cast<int64_t>(links[j])) + " of " +
             N(static_cast<int64_t>(index.ntotal)));
      }
    }
    if (n == 0) {
      if (graph.entry_point != -1 || graph.max_level != -1)
        Fail(name + " has an entry point but no nodes");
    } else if (graph.entry_point < 0 || static_cast<size_t>(graph.entry_point) >= n ||
               graph.max_level != graph.levels[graph.entry_point] - 1) {
      Fail(name + " has a wrong entry point");
    }
  }

  void Ivf(const faiss::IndexIVF& index, size_t codeSize, const std::string& role) {
    if (index.nlist < 1) Fail(role + " has no inverted lists");
    Child(index.quantizer, role + "'s coarse quantizer", index.d);
    if (index.is_trained && index.quantizer->ntotal != static_cast<int64_t>(index.nlist)) {
      Fail(role + "'s coarse quantizer has " + N(static_cast<int64_t>(index.quantizer->ntotal)) +
           " centroids for " + N(static_cast<uint64_t>(index.nlist)) + " lists");
    }
    if (index.code_size != codeSize) Fail(role + " has the wrong code size");
    const int mode = index.parallel_mode & ~index.PARALLEL_MODE_NO_HEAP_INIT;
    if (mode < 0 || mode > 3) Fail(role + " has an unknown parallel mode");
    const faiss::InvertedLists* lists = index.invlists;
    if (lists == nullptr) Fail(role + " has no inverted lists");
    if (knownTypesOnly_ && typeid(*lists) != typeid(faiss::ArrayInvertedLists)) {
      throw NativeError(ErrorCode::Unsupported, what_ +
                                                    " keeps its inverted lists outside the file (" +
                                                    TypeName(typeid(*lists)) +
                                                    "), which is not loaded from a "
                                                    "plain FAISS file");
    }
    if (lists->nlist != index.nlist || lists->code_size != codeSize) {
      Fail(role + "'s inverted lists do not match the index");
    }
    uint64_t total = 0;
    if (const auto* array = dynamic_cast<const faiss::ArrayInvertedLists*>(lists)) {
      if (array->ids.size() != index.nlist || array->codes.size() != index.nlist) {
        Fail(role + "'s inverted lists do not match the index");
      }
      for (size_t l = 0; l < index.nlist; ++l) {
        if (array->codes[l].size() != array->ids[l].size() * codeSize) {
          Fail(role + "'s list " + N(static_cast<uint64_t>(l)) + " has the wrong amount of codes");
        }
        for (size_t j = 0; j < array->ids[l].size(); ++j) {
          if (array->ids[l][j] < 0)
            Fail(role + "'s list " + N(static_cast<uint64_t>(l)) + " holds a negative id");
        }
        total += array->ids[l].size();
      }
    } else if (const auto* mapped = dynamic_cast<const faiss::OnDiskInvertedLists*>(lists)) {
      // Lists mapped from the file (ReadIndexFile's `mapped`): each must lie inside the mapping, or
      // a search would read past it. Their codes and ids are not read here: that is what mapping
      // spares.
      const uint64_t entry = codeSize + sizeof(faiss::Index::idx_t);
      for (size_t l = 0; l < index.nlist; ++l) {
        const faiss::OnDiskInvertedLists::List& list = mapped->lists[l];
        if (list.size > list.capacity || list.offset > mapped->totsize ||
            list.capacity > (mapped->totsize - list.offset) / entry) {
          Fail(role + "'s list " + N(static_cast<uint64_t>(l)) + " runs past the end of the file");
        }
        total += list.size;
      }
    } else {
      for (size_t l = 0; l < index.nlist; ++l) total += lists->list_size(l);
    }
    if (total != static_cast<uint64_t>(index.ntotal)) {
      Fail(role + "'s lists hold " + N(total) + " vectors, the index " +
           N(static_cast<int64_t>(index.ntotal)));
    }
    DirectMap(index, role);
  }

  void ListIdsBelow(const faiss::IndexIVF& index, int64_t limit) const {
    const auto* array = dynamic_cast<const faiss::ArrayInvertedLists*>(index.invlists);
    if (array == nullptr) return;
    for (const auto& ids : array->ids) {
      for (size_t j = 0; j < ids.size(); ++j) {
        if (ids[j] >= limit) Fail("its inverted lists refer past the end of its id map");
      }
    }
  }

  void DirectMap(const faiss::IndexIVF& index, const std::string& role) const {
    const faiss::DirectMap& map = index.direct_map;
    auto valid = [&](int64_t lo) {
      if (lo == -1) return true;  // a removed vector
      const uint64_t list = faiss::lo_listno(static_cast<uint64_t>(lo));
      return list < index.nlist && faiss::lo_offset(static_cast<uint64_t>(lo)) <
                                       index.invlists->list_size(static_cast<size_t>(list));
    };
    switch (map.type) {
      case faiss::DirectMap::NoMap: return;
      case faiss::DirectMap::Array:
        if (map.array.size() != static_cast<size_t>(index.ntotal))
          Fail(role + "'s direct map has the wrong size");
        for (int64_t lo : map.array) {
          if (!valid(lo)) Fail(role + "'s direct map points past its lists");
        }
        return;
      case faiss::DirectMap::Hashtable:
        for (const auto& entry : map.hashtable) {
          if (!valid(entry.second)) Fail(role + "'s direct map points past its lists");
        }
        return;
      default: break;  // newer FAISS counts its types (DMT_count)
    }
    Fail(role + " has an unknown direct map type");
  }

  void PreTransform(const faiss::IndexPreTransform& index, const std::string& role) {
    if (index.chain.empty()) Fail(role + " has an empty transform chain");
    int64_t d = index.d;
    for (const faiss::VectorTransform* transform : index.chain) {
      if (transform == nullptr) Fail(role + " has a missing transform");
      if (transform->d_in != d || transform->d_out < 1 || transform->d_out > kMaxCheckedDimension) {
        Fail(role + "'s transforms do not chain from dimension " + N(d));
      }
      const size_t in = static_cast<size_t>(transform->d_in);
      const size_t out = static_cast<size_t>(transform->d_out);
      if (const auto* linear = dynamic_cast<const faiss::LinearTransform*>(transform)) {
        if (linear->is_trained &&
            (linear->A.size() < in * out || (linear->have_bias && linear->b.size() < out))) {
          Fail(role + " has a linear transform with too few coefficients");
        }
      } else if (const auto* remap =
                     dynamic_cast<const faiss::RemapDimensionsTransform*>(transform)) {
        if (remap->map.size() != out) Fail(role + " has a wrong dimension map");
        for (int source : remap->map) {
          if (source < -1 || source >= transform->d_in) Fail(role + " has a wrong dimension map");
        }
      } else if (const auto* centering =
                     dynamic_cast<const faiss::CenteringTransform*>(transform)) {
        if (in != out || (centering->is_trained && centering->mean.size() != in)) {
          Fail(role + " has a wrong centering transform");
        }
      } else if (dynamic_cast<const faiss::NormalizationTransform*>(transform) != nullptr) {
        if (in != out) Fail(role + " has a wrong normalisation transform");
      } else if (knownTypesOnly_) {
        throw NativeError(ErrorCode::Unsupported,
                          what_ +
                              " holds a vector transform of a type this library does not check (" +
                              TypeName(typeid(*transform)) + ")");
      }
      d = transform->d_out;
    }
    Child(index.index, role + "'s transformed index", d);
    SameMetric(*index.index, role + "'s transformed index");
    if (index.index->ntotal != index.ntotal)
      Fail(role + "'s transformed index holds another number of vectors");
  }

  const std::string& what_;
  bool knownTypesOnly_;
  bool metricSeen_ = false;
  faiss::MetricType metric_ = faiss::METRIC_L2;
};

std::unique_ptr<faiss::Index> ParsePayload(faiss::IOReader& reader, const std::string& what,
                                           bool knownTypesOnly, int ioFlags = 0) {
  std::unique_ptr<faiss::Index> index;
  try {
    RunTranslatingErrors([&] { index.reset(faiss::read_index(&reader, ioFlags)); },
                         ErrorCode::Corrupt);
  } catch (const NativeError& e) {
    if (e.code() != ErrorCode::Corrupt) throw;
    throw NativeError(ErrorCode::Corrupt, what + " is not a valid index (" + e.what() + ")");
  }
  if (!index) throw NativeError(ErrorCode::Corrupt, what + " holds no index");
  CheckIndexStructure(*index, what, knownTypesOnly);
  return index;
}

// Bytes without the container's header and checksum reach FAISS's parser,
// which trusts its input: only when the caller asked for a plain FAISS file.
void RequirePlainAllowed(bool allowPlain, const std::string& what) {
  if (allowPlain) return;
  throw NativeError(ErrorCode::Corrupt,
                    what +
                        " has no ocvector header (OCVECIDX), so its checksum cannot be verified; "
                        "pass plainFaiss: true to read a plain FAISS file you trust");
}

const char* FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "a special file";
}

struct FileCloser {
  void operator()(FILE* file) const {
    if (file != nullptr) std::fclose(file);
  }
};
using UniqueFile = std::unique_ptr<FILE, FileCloser>;

void FsyncDirectoryOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;  // best effort: the rename itself already happened
  ::fsync(fd);
  ::close(fd);
}

// A name no one can plant a file or a link at in advance (the directory may
// have come with a clone): the process id, a counter and a random part.
std::string TempPathFor(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  static thread_local std::mt19937_64 random{std::random_device{}()};
  char suffix[17];
  std::snprintf(suffix, sizeof(suffix), "%016llx", static_cast<unsigned long long>(random()));
  return path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
         suffix;
}

// Creates the temporary file for `path`: new (O_EXCL), never through a link
// (O_NOFOLLOW), private (0600) whatever the umask, since the index describes
// the code it was built from. A name taken already is tried again under
// another; returns -1 with errno set when none could be made.
int CreateTempFile(const std::string& path, std::string& temp) {
  constexpr int kAttempts = 8;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    temp = TempPathFor(path);
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

}  // namespace

void CheckIndexStructure(const faiss::Index& index, const std::string& what, bool knownTypesOnly) {
  StructureCheck(what, knownTypesOnly).Index(index, "the index");
}

void WriteIndexFile(const faiss::Index& index, const std::string& path) {
  std::string temp;
  int fd = CreateTempFile(path, temp);
  UniqueFile file(fd < 0 ? nullptr : ::fdopen(fd, "wb"));
  if (!file) {
    const std::string message = SystemError("cannot write " + path + ": cannot create", temp);
    if (fd >= 0) ::close(fd);
    throw NativeError(ErrorCode::Io, message);
  }
  try {
    uint8_t header[kHeaderSize] = {};
    if (std::fwrite(header, 1, kHeaderSize, file.get()) != kHeaderSize) {
      throw NativeError(ErrorCode::Io, SystemError("cannot write", temp));
    }
    HashingFileWriter writer(file.get());
    RunTranslatingErrors([&] { faiss::write_index(&index, &writer); }, ErrorCode::Io);
    Header fields;
    fields.payloadLength = writer.length;
    fields.checksum = writer.hash.Digest();
    EncodeHeader(fields, header);
    if (std::fseek(file.get(), 0, SEEK_SET) != 0 ||
        std::fwrite(header, 1, kHeaderSize, file.get()) != kHeaderSize ||
        std::fflush(file.get()) != 0 || ::fsync(::fileno(file.get())) != 0) {
      throw NativeError(ErrorCode::Io, SystemError("cannot write", temp));
    }
    FILE* raw = file.release();
    if (std::fclose(raw) != 0) throw NativeError(ErrorCode::Io, SystemError("cannot close", temp));
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
      throw NativeError(ErrorCode::Io, SystemError("cannot rename " + temp + " to", path));
    }
  } catch (...) {
    file.reset();
    std::remove(temp.c_str());
    throw;
  }
  FsyncDirectoryOf(path);
}

std::unique_ptr<faiss::Index> ReadIndexFile(const std::string& path, bool allowPlain, bool mapped) {
  const std::string what = "index file " + path;
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
  // forever. Anything but a regular file is refused before a byte is read.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw NativeError(ErrorCode::Io, SystemError("cannot open", path));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const std::string message = SystemError("cannot stat", path);
    ::close(fd);
    throw NativeError(ErrorCode::Io, message);
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    throw NativeError(ErrorCode::Io,
                      path + " is " + FileKind(info.st_mode) + ", not a regular file");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  UniqueFile file(::fdopen(fd, "rb"));
  if (!file) {
    const std::string message = SystemError("cannot open", path);
    ::close(fd);
    throw NativeError(ErrorCode::Io, message);
  }
  const uint64_t fileSize = static_cast<uint64_t>(info.st_size);

  uint8_t header[kHeaderSize] = {};
  size_t got = std::fread(header, 1, kHeaderSize, file.get());
  if (!HasMagic(header, got)) {
    RequirePlainAllowed(allowPlain, what);
    // A plain FAISS file: let FAISS parse it from the start.
    std::rewind(file.get());
    faiss::FileIOReader reader(file.get());
    return ParsePayload(reader, what, true);
  }
  Header fields = DecodeHeader(header, got, what);
  if (fields.payloadLength != fileSize - kHeaderSize) {  // fileSize >= header: it was read
    throw NativeError(ErrorCode::Corrupt,
                      what + " is truncated or damaged: the header announces a payload of " +
                          std::to_string(fields.payloadLength) + " bytes, the file holds " +
                          std::to_string(fileSize - kHeaderSize));
  }
  if (mapped) {
    // The caller vouches that the file is as its writer left it (its stat recorded at write time),
    // so the checksum pass, a read of every byte, is skipped; the structure is still checked, and
    // an IVF index's lists are mapped from the file, not read: a search reads the pages of the
    // lists it probes.
    if (std::fseek(file.get(), kHeaderSize, SEEK_SET) != 0) {
      throw NativeError(ErrorCode::Io, SystemError("cannot seek", path));
    }
    faiss::FileIOReader reader(file.get());
    return ParsePayload(reader, what, false, faiss::IO_FLAG_MMAP);
  }
  // First pass: verify the checksum in fixed-size chunks (no second copy of a
  // large index in memory); second pass: let FAISS parse the verified bytes.
  std::vector<uint8_t> chunk(1 << 22);
  Xxh64 hash;
  uint64_t remaining = fields.payloadLength;
  while (remaining > 0) {
    size_t want = remaining < chunk.size() ? static_cast<size_t>(remaining) : chunk.size();
    size_t n = std::fread(chunk.data(), 1, want, file.get());
    if (n != want) throw NativeError(ErrorCode::Io, SystemError("cannot read", path));
    hash.Update(chunk.data(), n);
    remaining -= n;
  }
  if (hash.Digest() != fields.checksum) {
    throw NativeError(ErrorCode::Corrupt, what + " is damaged: checksum mismatch");
  }
  std::vector<uint8_t>().swap(chunk);
  if (std::fseek(file.get(), kHeaderSize, SEEK_SET) != 0) {
    throw NativeError(ErrorCode::Io, SystemError("cannot seek", path));
  }
  faiss::FileIOReader reader(file.get());
  // From the checking child (allowPlain), whose bytes may come from anyone, only types it checks.
  return ParsePayload(reader, what, allowPlain);
}

std::vector<uint8_t> SerializeIndex(const faiss::Index& index) {
  std::vector<uint8_t> out(kHeaderSize, 0);
  VectorAppendWriter writer(out);
  RunTranslatingErrors([&] { faiss::write_index(&index, &writer); });
  Header fields;
  fields.payloadLength = out.size() - kHeaderSize;
  fields.checksum = Xxh64Of(out.data() + kHeaderSize, out.size() - kHeaderSize);
  EncodeHeader(fields, out.data());
  return out;
}

std::unique_ptr<faiss::Index> DeserializeIndex(const uint8_t* data, size_t size, bool allowPlain) {
  const std::string what = "index buffer";
  if (!HasMagic(data, size)) {
    RequirePlainAllowed(allowPlain, what);
    SpanReader reader(data, size);
    return ParsePayload(reader, what, true);
  }
  Header fields = DecodeHeader(data, size, what);
  if (fields.payloadLength != size - kHeaderSize) {  // size >= header: decoded
    throw NativeError(ErrorCode::Corrupt,
                      what + " is truncated or damaged: the header announces a payload of " +
                          std::to_string(fields.payloadLength) + " bytes, the buffer holds " +
                          std::to_string(size - kHeaderSize));
  }
  if (Xxh64Of(data + kHeaderSize, fields.payloadLength) != fields.checksum) {
    throw NativeError(ErrorCode::Corrupt, what + " is damaged: checksum mismatch");
  }
  SpanReader reader(data + kHeaderSize, fields.payloadLength);
  return ParsePayload(reader, what, allowPlain);
}

}  // namespace ocvector
