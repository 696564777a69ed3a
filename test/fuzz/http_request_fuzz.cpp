// Fuzzes the secure port's HTTP/1.1 request reader (pkg/server/http_request.h), the first code any peer
// reaches, before authentication: request line, percent-decoding of path and query, headers,
// Content-Length bodies, and the 4xx/5xx answers to what it refuses.
// Input: as split_reads.h says (read sizes, then the request bytes).
// Invariants: no crash, hang or unbounded growth; the outcome does not depend on how the bytes were split
// into reads; an accepted request has a token method, a path starting with '/', lower-case header names
// and exactly its Content-Length of body; a refusal is one of the statuses the reader documents.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/server/http_request.h"
#include "test/fuzz/fuzz_check.h"
#include "test/fuzz/split_reads.h"

namespace {

using ks::server::Request;
using ks::server::RequestRead;

// What one read produced, as text, so that two reads compare (and print) as strings.
std::string describe(const RequestRead& r) {
  std::string out;
  if (r.rejection) {
    out += "reject " + std::to_string(r.rejection->status) + " " + r.method + " " + r.rejection->body;
  }
  if (r.request) {
    const Request& q = *r.request;
    out += "request " + q.method + " " + q.path + " ?" + q.rawQuery;
    for (const auto& [k, v] : q.query) out += "\n q " + k + "=" + v;
    for (const auto& [k, v] : q.headers) out += "\n h " + k + ": " + v;
    out += "\n body " + q.body;
  }
  return out;
}

RequestRead readSplit(std::string_view stream, std::string_view sizes, size_t& bytesRead) {
  ks::fuzz::SplitReader reader(stream, sizes);
  RequestRead r = ks::server::readRequest([&](char* buf, size_t cap) { return reader.read(buf, cap); });
  bytesRead = reader.consumed();
  return r;
}

void checkAccepted(const Request& q) {
  FUZZ_CHECK(!q.method.empty());
  FUZZ_CHECK(!q.path.empty() && q.path.front() == '/');
  for (const auto& [name, value] : q.headers) {
    FUZZ_CHECK(!name.empty());
    FUZZ_CHECK(std::none_of(name.begin(), name.end(), [](char c) { return c >= 'A' && c <= 'Z'; }));
    FUZZ_CHECK(value.empty() || (value.front() != ' ' && value.back() != ' '));
    if (name == "content-length") FUZZ_CHECK(q.body.size() == std::stoull(value));
    FUZZ_CHECK(name != "transfer-encoding");
  }
  FUZZ_CHECK(q.body.size() <= ks::server::kMaxBodyBytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto input = ks::fuzz::splitInput(data, size);
  if (!input) return 0;
  size_t wholeBytes = 0;
  size_t splitBytes = 0;
  const RequestRead whole = readSplit(input->stream, {}, wholeBytes);
  const RequestRead split = readSplit(input->stream, input->sizes, splitBytes);
  FUZZ_CHECK(wholeBytes <= input->stream.size() && splitBytes <= input->stream.size());
  FUZZ_CHECK(!(whole.request && whole.rejection));
  // Where the head ends in the middle of a read, the two may have read different amounts past it, but
  // what they made of the bytes must agree.
  FUZZ_CHECK_EQ_STR(describe(whole), describe(split));
  if (whole.rejection) {
    const int s = whole.rejection->status;
    FUZZ_CHECK(s == 400 || s == 413 || s == 431 || s == 501);
  }
  if (whole.request) checkAccepted(*whole.request);
  return 0;
}
