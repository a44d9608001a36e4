// Argument checks for the native surface. The TypeScript facade validates first
// and gives the friendlier message; these checks exist so that a direct call to
// the addon with wrong arguments is a JS exception, never undefined behaviour.
#pragma once

#include <napi.h>

#include <cstdint>
#include <string>

namespace ocvector {

Napi::Float32Array Float32ArrayArg(const Napi::CallbackInfo& info, size_t i, const char* name);
Napi::BigInt64Array BigInt64ArrayArg(const Napi::CallbackInfo& info, size_t i, const char* name);
Napi::Uint8Array BufferArg(const Napi::CallbackInfo& info, size_t i, const char* name);
int64_t IntegerArg(const Napi::CallbackInfo& info, size_t i, const char* name, int64_t min,
                   int64_t max);
// An optional integer: undefined (or null) gives `absent`.
int64_t OptionalIntegerArg(const Napi::CallbackInfo& info, size_t i, const char* name, int64_t min,
                           int64_t max, int64_t absent);
std::string StringArg(const Napi::CallbackInfo& info, size_t i, const char* name);
bool BooleanArg(const Napi::CallbackInfo& info, size_t i, const char* name);
// An optional boolean: undefined (or null) gives `absent`.
bool OptionalBooleanArg(const Napi::CallbackInfo& info, size_t i, const char* name, bool absent);

// Rows of `d` floats: checks that the length is a positive multiple of d.
// Returns the number of rows.
int64_t RowsOf(Napi::Env env, const Napi::Float32Array& array, int d, const char* name);

// Called on the worker thread: the values of a large array are scanned there,
// not on the JS thread. Throws NativeError(InvalidArgument) naming the first
// non-finite value.
void CheckFinite(const float* values, int64_t rows, int d, const char* name);

}  // namespace ocvector
