#pragma once
// Reading one HTTP/1.1 response from a byte source: the transport's connection (http_transport.h), or a
// fuzz target's buffer. The status line and headers (1xx interim responses skipped), then the body as they
// frame it: chunked, Content-Length or up to the end of the stream, gunzipped when Content-Encoding says
// gzip. Malformed input is an error, never a crash or an unbounded buffer (a line is at most 1 MiB).

#include <cstddef>
#include <functional>
#include <string_view>

#include "pkg/client/rest/http_transport.h"
#include "pkg/util/result.h"

namespace ks::client::rest {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Bytes read into buf (0 at the end of the stream).
  virtual Result<size_t, TransportError> readSome(char* buf, size_t cap) = 0;
};

// Calls onHead once the head is in, then onBody with each piece of the body (onBody returns false to stop
// reading). Returns whether the connection may carry another request; `bytesRead` counts what came from
// `source`, even on failure.
Result<bool, TransportError> readResponse(ByteSource& source, bool isHead,
                                          const std::function<void(const HttpHead&)>& onHead,
                                          const std::function<bool(std::string_view)>& onBody,
                                          size_t& bytesRead);

}  // namespace ks::client::rest
