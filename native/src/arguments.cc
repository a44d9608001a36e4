#include "arguments.h"

#include <cmath>
#include <cstring>

#include "errors.h"

namespace ocvector {

static std::string Describe(const char* name, const std::string& expectation) {
  return std::string(name) + " must be " + expectation;
}

Napi::Float32Array Float32ArrayArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  Napi::Value value = info[i];
  if (!value.IsTypedArray() ||
      value.As<Napi::TypedArray>().TypedArrayType() != napi_float32_array) {
    ThrowJs(info.Env(), ErrorCode::InvalidArgument, Describe(name, "a Float32Array"));
  }
  return value.As<Napi::Float32Array>();
}

Napi::BigInt64Array BigInt64ArrayArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  Napi::Value value = info[i];
  if (!value.IsTypedArray() ||
      value.As<Napi::TypedArray>().TypedArrayType() != napi_bigint64_array) {
    ThrowJs(info.Env(), ErrorCode::InvalidArgument, Describe(name, "a BigInt64Array"));
  }
  return value.As<Napi::BigInt64Array>();
}

// A Buffer or another Uint8Array. napi_is_buffer also accepts a DataView,
// whose bytes napi_get_buffer_info then refuses: the type is checked instead.
Napi::Uint8Array BufferArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  Napi::Value value = info[i];
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    ThrowJs(info.Env(), ErrorCode::InvalidArgument, Describe(name, "a Buffer"));
  }
  return value.As<Napi::Uint8Array>();
}

int64_t IntegerArg(const Napi::CallbackInfo& info, size_t i, const char* name, int64_t min,
                   int64_t max) {
  Napi::Value value = info[i];
  const std::string range = "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  if (!value.IsNumber()) ThrowJs(info.Env(), ErrorCode::InvalidArgument, Describe(name, range));
  double number = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(number) || std::floor(number) != number || number < static_cast<double>(min) ||
      number > static_cast<double>(max)) {
    ThrowJs(info.Env(), ErrorCode::InvalidArgument, Describe(name, range));
  }
  return static_cast<int64_t>(number);
}

int64_t OptionalIntegerArg(const Napi::CallbackInfo& info, size_t i, const char* name, int64_t min,
                           int64_t max, int64_t absent) {
  if (info[i].IsUndefined() || info[i].IsNull()) return absent;
  return IntegerArg(info, i, name, min, max);
}

std::string StringArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (!info[i].IsString())
    ThrowJs(info.Env(), ErrorCode::InvalidArgument, Describe(name, "a string"));
  return info[i].As<Napi::String>().Utf8Value();
}

bool BooleanArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (!info[i].IsBoolean())
    ThrowJs(info.Env(), ErrorCode::InvalidArgument, Describe(name, "a boolean"));
  return info[i].As<Napi::Boolean>().Value();
}

bool OptionalBooleanArg(const Napi::CallbackInfo& info, size_t i, const char* name, bool absent) {
  if (info[i].IsUndefined() || info[i].IsNull()) return absent;
  return BooleanArg(info, i, name);
}

int64_t RowsOf(Napi::Env env, const Napi::Float32Array& array, int d, const char* name) {
  const size_t length = array.ElementLength();
  if (length == 0 || length % static_cast<size_t>(d) != 0) {
    ThrowJs(env, ErrorCode::InvalidArgument,
            std::string(name) + " has " + std::to_string(length) +
                " values, which is not a positive multiple of the dimension " + std::to_string(d));
  }
  return static_cast<int64_t>(length / static_cast<size_t>(d));
}

void CheckFinite(const float* values, int64_t rows, int d, const char* name) {
  const size_t count = static_cast<size_t>(rows) * static_cast<size_t>(d);
  constexpr size_t kBlock = 4096;
  for (size_t start = 0; start < count; start += kBlock) {
    const size_t end = start + kBlock < count ? start + kBlock : count;
    // A float is NaN or infinite exactly when its exponent bits are all ones.
    // An OR over the block vectorises, so a clean array is checked at memory
    // speed; only a block with a bad value is scanned again for its position.
    uint32_t bad = 0;
    for (size_t i = start; i < end; ++i) {
      uint32_t bits;
      std::memcpy(&bits, values + i, sizeof bits);
      bad |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
    }
    if (bad == 0) continue;
    for (size_t i = start; i < end; ++i) {
      if (std::isfinite(values[i])) continue;
      throw NativeError(ErrorCode::InvalidArgument,
                        std::string(name) + " holds " +
                            (std::isnan(values[i]) ? "NaN" : "an infinite value") + " at row " +
                            std::to_string(i / d) + ", column " + std::to_string(i % d));
    }
  }
}

}  // namespace ocvector
