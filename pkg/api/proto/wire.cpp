#include "pkg/api/proto/wire.h"

namespace ks::api::proto {

namespace {
enum class VarintStatus { kOk, kTruncated, kTooLong };

VarintStatus parseVarint(const char*& p, const char* end, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p == end) return VarintStatus::kTruncated;
    const auto b = static_cast<uint8_t>(*p++);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) return VarintStatus::kOk;
  }
  return VarintStatus::kTooLong;
}
}  // namespace

bool takeVarint(std::string_view& in, uint64_t& v) {
  const char* p = in.data();
  if (parseVarint(p, in.data() + in.size(), v) != VarintStatus::kOk) return false;
  in.remove_prefix(static_cast<size_t>(p - in.data()));
  return true;
}

bool Reader::varint(uint64_t& v) {
  switch (parseVarint(p_, end_, v)) {
    case VarintStatus::kOk:
      return true;
    case VarintStatus::kTruncated:
      return fail("truncated varint");
    case VarintStatus::kTooLong:
      break;
  }
  return fail("varint longer than 10 bytes");
}

bool Reader::next(Field& f) {
  if (p_ == end_ || error_ != nullptr) return false;
  uint64_t key = 0;
  if (!varint(key)) return false;
  const uint64_t number = key >> 3;
  if (number == 0 || number > 0x1fffffff) return fail("invalid field number");
  f.number = static_cast<uint32_t>(number);
  f.type = static_cast<WireType>(key & 7);
  f.value = 0;
  f.bytes = {};
  switch (f.type) {
    case WireType::kVarint:
      return varint(f.value);
    case WireType::kFixed64:
    case WireType::kFixed32: {
      const size_t n = f.type == WireType::kFixed64 ? 8 : 4;
      if (static_cast<size_t>(end_ - p_) < n) return fail("truncated fixed-width value");
      for (size_t i = 0; i < n; ++i) f.value |= static_cast<uint64_t>(static_cast<uint8_t>(p_[i])) << (8 * i);
      p_ += n;
      return true;
    }
    case WireType::kBytes: {
      uint64_t len = 0;
      if (!varint(len)) return false;
      if (len > static_cast<uint64_t>(end_ - p_)) return fail("length-delimited value past the end of its message");
      f.bytes = std::string_view(p_, static_cast<size_t>(len));
      p_ += len;
      return true;
    }
    case WireType::kStartGroup:
      // Skipped, and reported as a group so callers ignore it like any unknown field.
      return skipGroup(f.number);
    case WireType::kEndGroup:
      return fail("unexpected end of group");
  }
  return fail("invalid wire type");
}

bool Reader::skipGroup(uint32_t number) {
  // Nested groups nest their end markers; depth counts them.
  int depth = 1;
  while (depth > 0) {
    uint64_t key = 0;
    if (!varint(key)) return false;
    const auto type = static_cast<WireType>(key & 7);
    uint64_t ignored = 0;
    switch (type) {
      case WireType::kVarint:
        if (!varint(ignored)) return false;
        break;
      case WireType::kFixed64:
      case WireType::kFixed32: {
        const size_t n = type == WireType::kFixed64 ? 8 : 4;
        if (static_cast<size_t>(end_ - p_) < n) return fail("truncated fixed-width value");
        p_ += n;
        break;
      }
      case WireType::kBytes:
        if (!varint(ignored)) return false;
        if (ignored > static_cast<uint64_t>(end_ - p_)) return fail("length-delimited value past the end of its message");
        p_ += ignored;
        break;
      case WireType::kStartGroup:
        ++depth;
        break;
      case WireType::kEndGroup:
        --depth;
        if (depth == 0 && (key >> 3) != number) return fail("mismatched end of group");
        break;
      default:
        return fail("invalid wire type");
    }
  }
  return true;
}

void Writer::rawVarint(uint64_t v) {
  while (v >= 0x80) {
    out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out_.push_back(static_cast<char>(v));
}

void Writer::varint(uint32_t number, uint64_t v) {
  rawVarint(static_cast<uint64_t>(number) << 3 | static_cast<uint64_t>(WireType::kVarint));
  rawVarint(v);
}

void Writer::bytes(uint32_t number, std::string_view v) {
  rawVarint(static_cast<uint64_t>(number) << 3 | static_cast<uint64_t>(WireType::kBytes));
  rawVarint(v.size());
  out_.append(v);
}

}  // namespace ks::api::proto
