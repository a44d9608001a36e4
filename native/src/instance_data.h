// Per-environment state (one per Node.js main thread or worker_thread), kept in
// napi instance data rather than static globals so the addon is safe to load in
// several worker_threads at once.
#pragma once

#include <napi.h>

namespace ocvector {

struct InstanceData {
  Napi::FunctionReference errorClass;  // the JS FaissError class, once registered
  Napi::FunctionReference indexClass;  // the native index constructor
};

inline InstanceData* GetInstanceData(Napi::Env env) { return env.GetInstanceData<InstanceData>(); }

}  // namespace ocvector
