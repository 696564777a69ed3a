#pragma once
// Reading one HTTP/1.1 request from a byte source: an accepted connection (server.cpp) or a fuzz target's
// buffer (test/fuzz/http_request_fuzz.cpp). It is the first code an unauthenticated peer reaches, so
// malformed input is a 4xx/5xx answer, never a crash or an unbounded buffer: the head is at most 64 KiB,
// the body at most 1 MiB, and only Content-Length framing is accepted (no Transfer-Encoding).

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/server/server.h"
#include "pkg/util/result.h"

namespace ks::server {

inline constexpr size_t kMaxHeaderBytes = 64 * 1024;
inline constexpr size_t kMaxBodyBytes = 1024 * 1024;

// Reads up to `cap` bytes into `buf`; 0 at the end of the stream, on a timeout or an error.
using ReadSome = std::function<size_t(char* buf, size_t cap)>;

// What a peer sent: a whole request (head and body); or the error to answer before closing the connection
// (`method` is the request's when its head parsed, so that a HEAD gets no body, else ""); or neither, when
// the peer sent nothing or closed in the middle of the body.
struct RequestRead {
  std::optional<Request> request;
  std::optional<Response> rejection;
  std::string method;
};

RequestRead readRequest(const ReadSome& read);

// Parses the request line and headers (everything before the blank line). Errors are 400 reasons.
Result<Request> parseHead(std::string_view head);

}  // namespace ks::server
