// The baseline for bench/native.ts: the binding's searches made by a plain C++
// program linked to the same libfaiss, on the same data and the same index
// file, with no Node.js in between.
//
// It stays up and answers commands on stdin, so that the benchmark can
// alternate raw and binding measurements in small rounds: drift on the machine
// (page-cache writeback, frequency, neighbours) then hits both sides alike.
//
// usage: raw-faiss <base.f32> <queries.f32> <d> <hnsw.ocvx> <k> <efSearch>
// commands, one per line, each answered with one line of JSON (times in ms):
//   single <flat1|flat|sliced|hnsw> <first> <count>   per-query times
//   batch <count> <repeats>                           per-batch times
//   quit
#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/index_io.h>
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>
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

template <typename Work>
double TimeMs(Work work) {
  auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::string Json(const std::vector<double>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + std::to_string(values[i]);
  return out + "]";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) { std::fprintf(stderr, "usage: see the source\n"); return 2; }
  const int d = std::atoi(argv[3]);
  const int k = std::atoi(argv[5]);
  const int efSearch = std::atoi(argv[6]);
  std::vector<float> queries = ReadFloats(argv[2]);
  const int threads = omp_get_max_threads();

  faiss::IndexFlatIP flat(d);
  {
    std::vector<float> base = ReadFloats(argv[1]);
    flat.add(static_cast<faiss::Index::idx_t>(base.size() / d), base.data());
  }
  // The HNSW index the binding built and wrote: skip the 32-byte container header.
  FILE* f = std::fopen(argv[4], "rb");
  if (!f) { std::perror(argv[4]); return 2; }
  std::fseek(f, 32, SEEK_SET);
  std::unique_ptr<faiss::Index> hnsw(faiss::read_index(f));
  std::fclose(f);
  dynamic_cast<faiss::IndexHNSW&>(*hnsw).hnsw.efSearch = efSearch;

  const size_t nq = queries.size() / d;
  std::vector<float> D(nq * k);
  std::vector<faiss::Index::idx_t> I(nq * k);
  std::cout << "{\"ready\":true,\"threads\":" << threads << "}" << std::endl;

  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream command(line);
    std::string verb, mode;
    command >> verb;
    std::vector<double> times;
    if (verb == "single") {
      size_t first = 0, count = 0;
      command >> mode >> first >> count;
      omp_set_num_threads(mode == "flat1" ? 1 : threads);
      for (size_t q = first; q < first + count && q < nq; ++q) {
        const float* x = &queries[q * d];
        if (mode == "sliced") {
          times.push_back(TimeMs([&] { ocvector::SlicedFlatSearch(flat, 1, x, k, D.data(), I.data(), threads); }));
        } else if (mode == "hnsw") {
          times.push_back(TimeMs([&] { hnsw->search(1, x, k, D.data(), I.data()); }));
        } else {
          times.push_back(TimeMs([&] { flat.search(1, x, k, D.data(), I.data()); }));
        }
      }
    } else if (verb == "batch") {
      size_t count = 0, repeats = 0;
      command >> count >> repeats;
      omp_set_num_threads(threads);
      for (size_t r = 0; r < repeats; ++r) {
        times.push_back(TimeMs([&] { flat.search(count, queries.data(), k, D.data(), I.data()); }));
      }
    } else if (verb == "quit") {
      return 0;
    } else {
      std::cout << "{\"error\":\"unknown command\"}" << std::endl;
      continue;
    }
    std::cout << Json(times) << std::endl;
  }
  return 0;
}
