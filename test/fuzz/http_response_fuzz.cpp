// Fuzzes the REST client's HTTP/1.1 response reader (pkg/client/rest/http_response.h), which reads what
// the apiserver (or anything listening at the configured address) sends back: status line, headers,
// chunked / Content-Length / to-EOF bodies, gzip.
// Input: byte 0 = n (number of split points, n % 16), then n bytes of read sizes, then the response bytes.
// Invariants: no crash, hang or unbounded growth; the body delivered must not depend on how the bytes were
// split into reads; a response whose head was not accepted delivers no body.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/client/rest/http_response.h"
#include "test/fuzz/fuzz_check.h"

namespace {

using ks::client::rest::ByteSource;
using ks::client::rest::HttpHead;
using ks::client::rest::TransportError;

// Hands out `data` in reads of the given sizes (cycled), then the end of the stream.
class SplitSource final : public ByteSource {
 public:
  SplitSource(std::string_view data, std::string_view sizes) : data_(data), sizes_(sizes) {}
  ks::Result<size_t, TransportError> readSome(char* buf, size_t cap) override {
    size_t n = std::min(cap, data_.size());
    if (!sizes_.empty()) n = std::min<size_t>(n, 1 + static_cast<uint8_t>(sizes_[next_++ % sizes_.size()]));
    std::copy_n(data_.data(), n, buf);
    data_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view data_;
  std::string_view sizes_;
  size_t next_ = 0;
};

struct Outcome {
  bool ok = false;
  bool headSeen = false;
  int32_t status = 0;
  std::string body;
};

Outcome read(std::string_view response, std::string_view sizes) {
  SplitSource source(response, sizes);
  Outcome o;
  size_t bytes = 0;
  auto r = ks::client::rest::readResponse(
      source, false,
      [&](const HttpHead& h) {
        o.headSeen = true;
        o.status = h.status;
      },
      [&](std::string_view b) {
        FUZZ_CHECK(o.headSeen);
        o.body.append(b);
        return true;
      },
      bytes);
  FUZZ_CHECK(bytes <= response.size());
  o.ok = r.ok();
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t cuts = data[0] % 16;
  if (size < 1 + cuts) return 0;
  const std::string_view sizes(reinterpret_cast<const char*>(data) + 1, cuts);
  const std::string_view response(reinterpret_cast<const char*>(data) + 1 + cuts, size - 1 - cuts);
  const Outcome whole = read(response, {});
  const Outcome split = read(response, sizes);
  FUZZ_CHECK(whole.ok == split.ok);
  FUZZ_CHECK(whole.headSeen == split.headSeen);
  FUZZ_CHECK(whole.status == split.status);
  if (whole.ok) FUZZ_CHECK_EQ_STR(whole.body, split.body);
  return 0;
}
