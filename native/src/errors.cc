#include "errors.h"

#include <faiss/impl/FaissException.h>

#include <cctype>
#include <new>

#include "instance_data.h"

namespace ocvector {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidArgument: return "INVALID_ARGUMENT";
    case ErrorCode::Closed: return "INDEX_CLOSED";
    case ErrorCode::Unsupported: return "UNSUPPORTED";
    case ErrorCode::NotTrained: return "NOT_TRAINED";
    case ErrorCode::Io: return "IO";
    case ErrorCode::Corrupt: return "CORRUPT_INDEX";
    case ErrorCode::Gpu: return "GPU";
    case ErrorCode::OutOfMemory: return "OUT_OF_MEMORY";
    case ErrorCode::Faiss: return "FAISS";
    case ErrorCode::Internal: return "INTERNAL";
  }
  return "INTERNAL";
}

std::string StripFaissLocation(const std::string& message) {
  for (size_t i = 0; i + 1 < message.size(); ++i) {
    if (message[i] != ':' || !std::isdigit(static_cast<unsigned char>(message[i + 1]))) continue;
    size_t j = i + 1;
    while (j < message.size() && std::isdigit(static_cast<unsigned char>(message[j]))) ++j;
    if (j + 1 < message.size() && message[j] == ':' && message[j + 1] == ' ') {
      return message.substr(j + 2);
    }
  }
  return message;
}

void RunTranslatingErrors(const std::function<void()>& body, ErrorCode fallback) {
  try {
    body();
  } catch (const NativeError&) {
    throw;
  } catch (const faiss::FaissException& e) {
    // FAISS messages carry the failed check and its source location; the
    // first line (`msg`) is the part that means something to a user.
    throw NativeError(fallback, std::string("FAISS: ") + StripFaissLocation(e.msg));
  } catch (const std::bad_alloc&) {
    throw NativeError(ErrorCode::OutOfMemory, "out of memory");
  } catch (const std::length_error& e) {
    // std::vector::resize with an absurd size (typically a corrupt header).
    throw NativeError(fallback == ErrorCode::Corrupt ? fallback : ErrorCode::OutOfMemory,
                      std::string("allocation too large: ") + e.what());
  } catch (const std::exception& e) {
    throw NativeError(fallback, e.what());
  } catch (...) {
    throw NativeError(ErrorCode::Internal, "unknown C++ exception");
  }
}

Napi::Value MakeJsError(Napi::Env env, ErrorCode code, const std::string& message) {
  Napi::String jsMessage = Napi::String::New(env, message);
  Napi::String jsCode = Napi::String::New(env, ErrorCodeName(code));
  InstanceData* data = GetInstanceData(env);
  if (data != nullptr && !data->errorClass.IsEmpty()) {
    // The class was tried when it was registered, but a constructor may still
    // throw; the plain Error below then carries the message and code.
    try {
      return data->errorClass.New({jsMessage, jsCode});
    } catch (const Napi::Error&) {
    }
  }
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("code", jsCode);
  return error.Value();
}

void ThrowJs(Napi::Env env, ErrorCode code, const std::string& message) {
  throw Napi::Error(env, MakeJsError(env, code, message));
}

}  // namespace ocvector
