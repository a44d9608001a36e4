{
  # Default build: node-gyp against the system FAISS (Debian's static
  # libfaiss.a from libfaiss-dev), OpenMP and the system BLAS. For a GPU FAISS
  # or another install prefix use `npm run build:cmake` (native/CMakeLists.txt).
  "targets": [
    {
      "target_name": "ocvector",
      "sources": [
        "native/src/addon.cc",
        "native/src/allowed_search.cc",
        "native/src/arguments.cc",
        "native/src/errors.cc",
        "native/src/faiss_index.cc",
        "native/src/flat_search.cc",
        "native/src/gpu.cc",
        "native/src/half_ivf_search.cc",
        "native/src/index_holder.cc",
        "native/src/index_io.cc",
        "native/src/reconstruct_many.cc",
        "native/src/shared_reads.cc",
        "native/src/system_info.cc"
      ],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")"
      ],
      "defines": [
        "NAPI_VERSION=8",
        "NAPI_CPP_EXCEPTIONS",
        "NODE_ADDON_API_DISABLE_DEPRECATED"
      ],
      "cflags!": ["-fno-exceptions", "-fno-rtti"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti", "-std=gnu++17"],
      "cflags": ["-O3", "-fopenmp", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-frtti", "-fvisibility-inlines-hidden"],
      "ldflags": ["-fopenmp", "-Wl,--exclude-libs,ALL"],
      "libraries": [
        "-l:libfaiss.a",
        "-lblas",
        "-llapack",
        "-ldl"
      ]
    }
  ]
}
