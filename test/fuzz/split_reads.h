#pragma once
// For the targets that read a byte stream (http_response_fuzz, http_request_fuzz): the input is byte 0 = n
// (the number of read sizes, n % 16), then n bytes of read sizes, then the stream. SplitReader hands the
// stream out in reads of those sizes (cycled), so that a target can check that what it makes of the stream
// does not depend on where the reads stop.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ks::fuzz {

struct SplitInput {
  std::string_view sizes;
  std::string_view stream;
};

inline std::optional<SplitInput> splitInput(const uint8_t* data, size_t size) {
  if (size == 0) return std::nullopt;
  const size_t cuts = data[0] % 16;
  if (size < 1 + cuts) return std::nullopt;
  const char* bytes = reinterpret_cast<const char*>(data);
  return SplitInput{std::string_view(bytes + 1, cuts), std::string_view(bytes + 1 + cuts, size - 1 - cuts)};
}

class SplitReader {
 public:
  // No sizes: each read takes as much as it asks for.
  SplitReader(std::string_view stream, std::string_view sizes) : stream_(stream), sizes_(sizes) {}

  // Copies the next piece into buf; 0 at the end of the stream.
  size_t read(char* buf, size_t cap) {
    size_t n = std::min(cap, stream_.size());
    if (!sizes_.empty()) n = std::min<size_t>(n, 1 + static_cast<uint8_t>(sizes_[next_++ % sizes_.size()]));
    std::copy_n(stream_.data(), n, buf);
    stream_.remove_prefix(n);
    consumed_ += n;
    return n;
  }
  size_t consumed() const { return consumed_; }

 private:
  std::string_view stream_;
  std::string_view sizes_;
  size_t next_ = 0;
  size_t consumed_ = 0;
};

}  // namespace ks::fuzz
