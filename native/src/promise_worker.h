// Base of every asynchronous call: Run() executes on a libuv worker thread and
// may throw anything (it is translated to a NativeError with a code); Result()
// runs back on the JS thread and builds the value the Promise resolves with.
#pragma once

#include <napi.h>

#include "errors.h"
#include "system_info.h"

namespace ocvector {

class PromiseWorker : public Napi::AsyncWorker {
 public:
  explicit PromiseWorker(Napi::Env env)
      : Napi::AsyncWorker(env, "ocvector"), deferred_(Napi::Promise::Deferred::New(env)) {}

  // Queues the worker and returns its Promise. The worker deletes itself after
  // settling it, on the JS thread.
  Napi::Promise Start() {
    Napi::Promise promise = deferred_.Promise();
    Queue();
    return promise;
  }

 protected:
  virtual void Run() = 0;
  virtual Napi::Value Result(Napi::Env env) { return env.Undefined(); }

 private:
  void Execute() final {
    ApplyThreadCount();
    try {
      RunTranslatingErrors([this] { Run(); });
    } catch (const NativeError& e) {
      code_ = e.code();
      SetError(e.what());
    }
  }

  void OnOK() final {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    try {
      deferred_.Resolve(Result(env));
    } catch (const Napi::Error& e) {
      deferred_.Reject(e.Value());
    } catch (const NativeError& e) {
      deferred_.Reject(MakeJsError(env, e.code(), e.what()));
    }
  }

  void OnError(const Napi::Error& error) final {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    deferred_.Reject(MakeJsError(env, code_, error.Message()));
  }

  Napi::Promise::Deferred deferred_;
  ErrorCode code_ = ErrorCode::Internal;
};

}  // namespace ocvector
