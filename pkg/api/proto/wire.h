#pragma once
// The protobuf wire format (https://protobuf.dev/programming-guides/encoding/), just what Kubernetes'
// generated.proto messages use: a reader that walks one message's fields without copying, and a writer.
// Kubernetes' messages are proto2 with string enums, so a field is a varint, a length-delimited value
// (string, bytes, embedded message, map entry) or, rarely, a fixed 32/64-bit value.

#include <cstdint>
#include <string>
#include <string_view>

namespace ks::api::proto {

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kBytes = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5 };

struct Field {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t value = 0;      // kVarint, kFixed64, kFixed32
  std::string_view bytes;  // kBytes: points into the reader's input
};

// Walks the fields of one message in wire order. Unknown fields are the caller's to ignore; groups (a
// proto2 feature no Kubernetes message uses) are skipped whole, as Go's generated skip function does.
class Reader {
 public:
  explicit Reader(std::string_view message) : p_(message.data()), end_(message.data() + message.size()) {}

  // The next field; false at the end of the message or on malformed input (then error() is set).
  bool next(Field& f);
  // Why the last next() failed, or nullptr when it reached the end cleanly.
  const char* error() const { return error_; }

 private:
  bool varint(uint64_t& v);
  bool fail(const char* why) {
    error_ = why;
    return false;
  }
  bool skipGroup(uint32_t number);

  const char* p_;
  const char* end_;
  const char* error_ = nullptr;
};

// Takes one varint off the front of `in` (a packed repeated field's element); false when truncated.
bool takeVarint(std::string_view& in, uint64_t& v);

// Appends fields to a message. Nested messages are written into their own Writer and added with bytes().
class Writer {
 public:
  void varint(uint32_t number, uint64_t v);
  void boolean(uint32_t number, bool v) { varint(number, v ? 1 : 0); }
  void bytes(uint32_t number, std::string_view v);  // string, bytes or an embedded message
  const std::string& data() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void rawVarint(uint64_t v);
  std::string out_;
};

}  // namespace ks::api::proto
