// Module entry: the NativeIndex class and the process-wide functions.
#include <faiss/Index.h>
#include <napi.h>

#include "arguments.h"
#include "errors.h"
#include "faiss_index.h"
#include "gpu.h"
#include "instance_data.h"
#include "shared_reads.h"
#include "system_info.h"

namespace ocvector {
namespace {

// The facade registers its FaissError class once, so that native errors are
// instances of it (better-sqlite3's pattern).
// The class is tried once here: a function that cannot be called with `new`
// (an arrow function, a method) or that does not make an Error would
// otherwise fail later, while a worker's Promise is being rejected.
Napi::Value SetErrorClass(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string expectation =
      "errorClass must be a constructor of Error objects, called as new errorClass(message, code)";
  if (!info[0].IsFunction()) ThrowJs(env, ErrorCode::InvalidArgument, expectation);
  Napi::Function errorClass = info[0].As<Napi::Function>();
  Napi::Value probe;
  try {
    probe = errorClass.New({Napi::String::New(env, "probe"), Napi::String::New(env, "INTERNAL")});
  } catch (const Napi::Error& e) {
    ThrowJs(env, ErrorCode::InvalidArgument, expectation + " (" + e.Message() + ")");
  }
  if (!probe.IsObject() ||
      !probe.As<Napi::Object>().InstanceOf(env.Global().Get("Error").As<Napi::Function>())) {
    ThrowJs(env, ErrorCode::InvalidArgument,
            expectation + " (it made something that is not an Error)");
  }
  GetInstanceData(env)->errorClass = Napi::Persistent(errorClass);
  return env.Undefined();
}

Napi::Value GpuInfoJs(const Napi::CallbackInfo& info) {
  GpuInfo gpu = QueryGpu();
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("compiled", gpu.compiled);
  out.Set("devices", gpu.devices);
  out.Set("sharedResources", gpu.sharedResources);
  out.Set("reason", gpu.reason);
  return out;
}

Napi::Value BlasInfoJs(const Napi::CallbackInfo& info) {
  BlasInfo blas = QueryBlas();
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("library", blas.library);
  out.Set("vendor", blas.vendor);
  out.Set("config", blas.config);
  out.Set("threading", blas.threading);
  out.Set("coreType", blas.coreType);
  out.Set("ompWaitPolicy", blas.ompWaitPolicy);
  return out;
}

Napi::Value SetNumThreads(const Napi::CallbackInfo& info) {
  SetThreadCount(static_cast<int>(IntegerArg(info, 0, "threads", 0, 4096)));
  return info.Env().Undefined();
}

// How many indexes read shared are in memory now, for every thread of the process.
Napi::Value SharedIndexes(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), SharedReads::Instance().Live());
}

Napi::Value GetNumThreads(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), ThreadCount());
}

// Only the child process that checks a plain FAISS file calls it (src/native/plain-faiss.ts).
Napi::Value CapMemoryGrowthJs(const Napi::CallbackInfo& info) {
  const int64_t bytes = IntegerArg(info, 0, "bytes", 0, int64_t(1) << 52);
  return Napi::Boolean::New(info.Env(), CapMemoryGrowth(static_cast<uint64_t>(bytes)));
}

}  // namespace

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* data = new InstanceData();
  env.SetInstanceData<InstanceData>(data);  // deleted by N-API when env ends
  Napi::Function indexClass = NativeIndex::DefineClass(env);
  data->indexClass = Napi::Persistent(indexClass);

  exports.Set("NativeIndex", indexClass);
  exports.Set("setErrorClass", Napi::Function::New<SetErrorClass>(env, "setErrorClass"));
  exports.Set("gpuInfo", Napi::Function::New<GpuInfoJs>(env, "gpuInfo"));
  exports.Set("blasInfo", Napi::Function::New<BlasInfoJs>(env, "blasInfo"));
  exports.Set("setNumThreads", Napi::Function::New<SetNumThreads>(env, "setNumThreads"));
  exports.Set("getNumThreads", Napi::Function::New<GetNumThreads>(env, "getNumThreads"));
  exports.Set("sharedIndexes", Napi::Function::New<SharedIndexes>(env, "sharedIndexes"));
  exports.Set("capMemoryGrowth", Napi::Function::New<CapMemoryGrowthJs>(env, "capMemoryGrowth"));
  // What this addon can do that an older build cannot, for the facade to check
  // before it relies on it: an older addon ignores arguments it does not know.
  Napi::Array features = Napi::Array::New(env, 3);
  features.Set(uint32_t(0), "searchAllowed");
  features.Set(uint32_t(1), "sharedReads");
  features.Set(uint32_t(2), "mappedReads");
  exports.Set("features", features);
  exports.Set("faissVersion", Napi::String::New(env, std::to_string(FAISS_VERSION_MAJOR) + "." +
                                                         std::to_string(FAISS_VERSION_MINOR) + "." +
                                                         std::to_string(FAISS_VERSION_PATCH)));
  return exports;
}

}  // namespace ocvector

// NODE_API_MODULE pastes the function's name into an identifier, so it needs
// an unqualified one.
static Napi::Object InitOcvector(Napi::Env env, Napi::Object exports) {
  return ocvector::Init(env, exports);
}

NODE_API_MODULE(ocvector, InitOcvector)
