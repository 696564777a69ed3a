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
#include "test/fuzz/split_reads.h"

namespace {

using ks::client::rest::ByteSource;
using ks::client::rest::HttpHead;
using ks::client::rest::TransportError;

// The transport's byte source over a SplitReader.
class SplitSource final : public ByteSource {
 public:
  SplitSource(std::string_view data, std::string_view sizes) : reader_(data, sizes) {}
  ks::Result<size_t, TransportError> readSome(char* buf, size_t cap) override { return reader_.read(buf, cap); }

 private:
  ks::fuzz::SplitReader reader_;
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
  const auto input = ks::fuzz::splitInput(data, size);
  if (!input) return 0;
  const Outcome whole = read(input->stream, {});
  const Outcome split = read(input->stream, input->sizes);
  FUZZ_CHECK(whole.ok == split.ok);
  FUZZ_CHECK(whole.headSeen == split.headSeen);
  FUZZ_CHECK(whole.status == split.status);
  if (whole.ok) FUZZ_CHECK_EQ_STR(whole.body, split.body);
  return 0;
}
