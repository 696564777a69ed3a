// Fuzzes the watch stream framing (pkg/client/rest/line_splitter.h, fed by the REST client's WatchQueue
// with whatever chunks the socket delivers) and the decoding of each line into a watch event
// (decodeWatchEventJson, as RestClient's watch does).
// Input: byte 0 = n (number of split points, n % 16; bit 4 set decodes the lines as Node watch events, else
// as Pod ones: one JSON parse per line, not two), then n bytes of chunk lengths, then the stream.
// The lines must not depend on where the chunks were cut: they are compared with one feed of the whole
// stream and with a reference split on '\n'.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/json/codec.h"
#include "pkg/client/rest/line_splitter.h"
#include "test/fuzz/fuzz_check.h"

namespace {

// What the splitter promises: '\n'-separated lines, one trailing '\r' dropped, empty lines skipped.
std::vector<std::string> referenceLines(std::string_view stream) {
  std::vector<std::string> out;
  while (!stream.empty()) {
    const size_t nl = stream.find('\n');
    std::string_view line = stream.substr(0, nl);
    stream.remove_prefix(nl == std::string_view::npos ? stream.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) out.emplace_back(line);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t cuts = data[0] % 16;
  if (size < 1 + cuts) return 0;
  const uint8_t* lengths = data + 1;
  const std::string_view stream(reinterpret_cast<const char*>(data) + 1 + cuts, size - 1 - cuts);

  std::vector<std::string> chunked;
  ks::client::rest::LineSplitter splitter;
  const auto collect = [&](std::string&& line) { chunked.push_back(std::move(line)); };
  std::string_view rest = stream;
  for (size_t i = 0; i < cuts && !rest.empty(); ++i) {
    const size_t n = std::min<size_t>(lengths[i], rest.size());
    splitter.feed(rest.substr(0, n), collect);
    FUZZ_CHECK(splitter.partialSize() <= stream.size());
    rest.remove_prefix(n);
  }
  splitter.feed(rest, collect);
  splitter.finish(collect);
  FUZZ_CHECK(splitter.partialSize() == 0);

  std::vector<std::string> whole;
  ks::client::rest::LineSplitter once;
  once.feed(stream, [&](std::string&& line) { whole.push_back(std::move(line)); });
  once.finish([&](std::string&& line) { whole.push_back(std::move(line)); });
  FUZZ_CHECK(chunked == whole);
  FUZZ_CHECK(chunked == referenceLines(stream));

  const bool asNodes = (data[0] & 0x10) != 0;
  for (const std::string& line : chunked) {
    if (asNodes) {
      (void)ks::api::decodeWatchEventJson<ks::api::Node>(line);
      continue;
    }
    auto pod = ks::api::decodeWatchEventJson<ks::api::Pod>(line);
    if (pod.ok()) (void)ks::api::encodeWatchEventJson(*pod);
  }
  return 0;
}
