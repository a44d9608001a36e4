// NativeIndex: the JS object around one FAISS index. JS code reaches it only
// through the TypeScript facade (src/native/faiss-index.ts).
#pragma once

#include <napi.h>

#include <memory>

#include "index_holder.h"

namespace ocvector {

class NativeIndex : public Napi::ObjectWrap<NativeIndex> {
 public:
  static Napi::Function DefineClass(Napi::Env env);

  // Only called with a type-tagged External built by NewInstance(); index
  // construction is asynchronous (create, read, fromBuffer).
  explicit NativeIndex(const Napi::CallbackInfo& info);

  static Napi::Value NewInstance(Napi::Env env, std::shared_ptr<IndexHolder> holder);

 private:
  // Asynchronous (return Promises).
  static Napi::Value Create(const Napi::CallbackInfo& info);
  static Napi::Value Read(const Napi::CallbackInfo& info);
  static Napi::Value FromBuffer(const Napi::CallbackInfo& info);
  Napi::Value Train(const Napi::CallbackInfo& info);
  Napi::Value Add(const Napi::CallbackInfo& info);
  Napi::Value AddWithIds(const Napi::CallbackInfo& info);
  Napi::Value Search(const Napi::CallbackInfo& info);
  Napi::Value RemoveIds(const Napi::CallbackInfo& info);
  Napi::Value Reconstruct(const Napi::CallbackInfo& info);
  Napi::Value ReconstructMany(const Napi::CallbackInfo& info);
  Napi::Value Write(const Napi::CallbackInfo& info);
  Napi::Value ToBuffer(const Napi::CallbackInfo& info);
  Napi::Value CopyTo(const Napi::CallbackInfo& info);

  // Synchronous.
  Napi::Value Close(const Napi::CallbackInfo& info);
  Napi::Value GetClosed(const Napi::CallbackInfo& info);
  Napi::Value GetNtotal(const Napi::CallbackInfo& info);
  Napi::Value GetIsTrained(const Napi::CallbackInfo& info);
  Napi::Value GetInfo(const Napi::CallbackInfo& info);

  // The holder, or a thrown INDEX_CLOSED error.
  std::shared_ptr<IndexHolder> Open(Napi::Env env) const;

  std::shared_ptr<IndexHolder> holder_;
};

}  // namespace ocvector
