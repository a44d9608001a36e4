// Error model of the addon: every failure inside the addon becomes a NativeError
// with a stable code, and every NativeError reaching JavaScript becomes an
// instance of the JS FaissError class (registered by the facade), so callers can
// branch on `error.code`. No C++ exception may ever cross into V8 unhandled.
#pragma once

#include <napi.h>

#include <functional>
#include <stdexcept>
#include <string>

namespace ocvector {

enum class ErrorCode {
  InvalidArgument,  // a caller's mistake: shape, value, option
  Closed,           // the index was closed
  Unsupported,      // the index type cannot do this (e.g. remove on HNSW)
  NotTrained,       // add/search before train on IVF/PQ
  Io,               // the file system refused (missing file, permissions)
  Corrupt,          // a file or buffer is not a valid index
  Gpu,              // GPU requested but not available, or a GPU failure
  OutOfMemory,      // allocation failed
  Faiss,            // any other FAISS exception
  Internal,         // a bug in the addon
};

const char* ErrorCodeName(ErrorCode code);

class NativeError : public std::runtime_error {
 public:
  NativeError(ErrorCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

// Runs `body`, converting every exception (FAISS, std, unknown) into a
// NativeError. `fallback` is the code used for a FaissException that has no
// more specific meaning in the context of the call (e.g. Corrupt while reading).
void RunTranslatingErrors(const std::function<void()>& body, ErrorCode fallback = ErrorCode::Faiss);

// FAISS formats its messages as "Error in <function> at <file>:<line>: <text>";
// returns <text>, the part that means something to a user of this library.
std::string StripFaissLocation(const std::string& message);

// Builds a JS error object: an instance of the registered FaissError class
// when there is one, otherwise a plain Error, with `code` set either way.
Napi::Value MakeJsError(Napi::Env env, ErrorCode code, const std::string& message);

// Throws a JS exception (used on the main thread, in synchronous methods).
[[noreturn]] void ThrowJs(Napi::Env env, ErrorCode code, const std::string& message);

}  // namespace ocvector
