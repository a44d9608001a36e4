// Streaming XXH64 (seed 0), the checksum of the index container. Written out
// here (about 80 lines) rather than adding a dependency; verified against the
// reference implementation's published test vectors in test/native.persistence.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ocvector {

class Xxh64 {
 public:
  void Update(const void* input, size_t length) {
    const uint8_t* p = static_cast<const uint8_t*>(input);
    total_ += length;
    if (bufferSize_ + length < 32) {
      std::memcpy(buffer_ + bufferSize_, p, length);
      bufferSize_ += length;
      return;
    }
    if (bufferSize_ > 0) {
      size_t fill = 32 - bufferSize_;
      std::memcpy(buffer_ + bufferSize_, p, fill);
      Stripe(buffer_);
      p += fill;
      length -= fill;
      bufferSize_ = 0;
    }
    while (length >= 32) {
      Stripe(p);
      p += 32;
      length -= 32;
    }
    std::memcpy(buffer_, p, length);
    bufferSize_ = length;
  }

  uint64_t Digest() const {
    uint64_t h;
    if (total_ >= 32) {
      h = Rotl(v_[0], 1) + Rotl(v_[1], 7) + Rotl(v_[2], 12) + Rotl(v_[3], 18);
      for (uint64_t v : v_) h = MergeRound(h, v);
    } else {
      h = kPrime5;
    }
    h += total_;
    const uint8_t* p = buffer_;
    size_t left = bufferSize_;
    while (left >= 8) {
      h ^= Round(0, Read64(p));
      h = Rotl(h, 27) * kPrime1 + kPrime4;
      p += 8;
      left -= 8;
    }
    if (left >= 4) {
      h ^= static_cast<uint64_t>(Read32(p)) * kPrime1;
      h = Rotl(h, 23) * kPrime2 + kPrime3;
      p += 4;
      left -= 4;
    }
    while (left > 0) {
      h ^= (*p) * kPrime5;
      h = Rotl(h, 11) * kPrime1;
      ++p;
      --left;
    }
    h ^= h >> 33;
    h *= kPrime2;
    h ^= h >> 29;
    h *= kPrime3;
    h ^= h >> 32;
    return h;
  }

 private:
  static constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
  static constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
  static constexpr uint64_t kPrime3 = 0x165667B19E3779F9ULL;
  static constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ULL;
  static constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ULL;

  static uint64_t Rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
  static uint64_t Read64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  static uint32_t Read32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  static uint64_t Round(uint64_t acc, uint64_t input) {
    acc += input * kPrime2;
    return Rotl(acc, 31) * kPrime1;
  }
  static uint64_t MergeRound(uint64_t acc, uint64_t v) {
    acc ^= Round(0, v);
    return acc * kPrime1 + kPrime4;
  }
  void Stripe(const uint8_t* p) {
    for (int i = 0; i < 4; ++i) v_[i] = Round(v_[i], Read64(p + 8 * i));
  }

  uint64_t v_[4] = {kPrime1 + kPrime2, kPrime2, 0, 0 - kPrime1};
  uint8_t buffer_[32] = {};
  size_t bufferSize_ = 0;
  uint64_t total_ = 0;
};

inline uint64_t Xxh64Of(const void* data, size_t length) {
  Xxh64 hash;
  hash.Update(data, length);
  return hash.Digest();
}

}  // namespace ocvector
