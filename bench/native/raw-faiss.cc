// The baseline for bench/native.ts: the same searches as the binding, on the
// same data and the same index file, made by a plain C++ program linked to the
// same libfaiss, with no Node.js in between. Prints one JSON object.
//
// usage: raw-faiss <base.f32> <queries.f32> <d> <hnsw.ocvx> <k> <singles> <batch> <batchRepeats> <efSearch>
#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/index_io.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "flat_search.h"

namespace {

std::vector<float> ReadFloats(const char* path) {
  FILE* f = std::fopen(path, "rb");
  if (!f) { std::perror(path); std::exit(2); }
  std::fseek(f, 0, SEEK_END);
  long bytes = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  std::vector<float> out(bytes / sizeof(float));
  if (std::fread(out.data(), sizeof(float), out.size(), f) != out.size()) { std::perror(path); std::exit(2); }
  std::fclose(f);
  return out;
}

double Ms(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

std::string Json(const std::vector<double>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + std::to_string(values[i]);
  return out + "]";
}

template <typename Search>
std::vector<double> TimeSingles(int singles, Search search) {
  std::vector<double> times;
  search(0);  // warm-up: page in the data, start the OpenMP team
  for (int q = 0; q < singles; ++q) {
    auto t0 = std::chrono::steady_clock::now();
    search(q);
    times.push_back(Ms(t0, std::chrono::steady_clock::now()));
  }
  return times;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 10) { std::fprintf(stderr, "usage: see the source\n"); return 2; }
  std::vector<float> base = ReadFloats(argv[1]);
  std::vector<float> queries = ReadFloats(argv[2]);
  const int d = std::atoi(argv[3]);
  const char* hnswPath = argv[4];
  const int k = std::atoi(argv[5]);
  const int singles = std::atoi(argv[6]);
  const int batch = std::atoi(argv[7]);
  const int batchRepeats = std::atoi(argv[8]);
  const int efSearch = std::atoi(argv[9]);
  const int64_t n = base.size() / d;
  const int threads = omp_get_max_threads();

  faiss::IndexFlatIP flat(d);
  flat.add(n, base.data());
  std::vector<float> D(static_cast<size_t>(batch) * k);
  std::vector<faiss::Index::idx_t> I(static_cast<size_t>(batch) * k);

  omp_set_num_threads(1);
  auto flatOneThread = TimeSingles(singles, [&](int q) { flat.search(1, &queries[q * d], k, D.data(), I.data()); });
  omp_set_num_threads(threads);
  auto flatFaiss = TimeSingles(singles, [&](int q) { flat.search(1, &queries[q * d], k, D.data(), I.data()); });
  auto flatSliced = TimeSingles(singles, [&](int q) {
    ocvector::SlicedFlatSearch(flat, 1, &queries[q * d], k, D.data(), I.data(), threads);
  });
  std::vector<double> batched;
  flat.search(batch, queries.data(), k, D.data(), I.data());
  for (int r = 0; r < batchRepeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    flat.search(batch, queries.data(), k, D.data(), I.data());
    batched.push_back(Ms(t0, std::chrono::steady_clock::now()));
  }

  // The HNSW index the binding built and wrote: skip the 32-byte container header.
  FILE* f = std::fopen(hnswPath, "rb");
  if (!f) { std::perror(hnswPath); return 2; }
  std::fseek(f, 32, SEEK_SET);
  std::unique_ptr<faiss::Index> hnsw(faiss::read_index(f));
  std::fclose(f);
  dynamic_cast<faiss::IndexHNSW&>(*hnsw).hnsw.efSearch = efSearch;
  auto hnswSingles = TimeSingles(singles, [&](int q) { hnsw->search(1, &queries[q * d], k, D.data(), I.data()); });

  std::printf(
      "{\"threads\":%d,\"flatOneThread\":%s,\"flatFaiss\":%s,\"flatSliced\":%s,\"flatBatched\":%s,"
      "\"hnswSingles\":%s}\n",
      threads, Json(flatOneThread).c_str(), Json(flatFaiss).c_str(), Json(flatSliced).c_str(),
      Json(batched).c_str(), Json(hnswSingles).c_str());
  return 0;
}
