#include "pkg/client/rest/http_response.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <string>

#include "pkg/util/strings.h"

namespace ks::client::rest {

namespace {

// A malformed status line for an error message, quoted as Go's %q shows it: bytes outside printable
// ASCII escaped, so the message stays valid UTF-8 (it ends up in events and JSON).
std::string malformedStatusLine(std::string_view line) {
  std::string out = "malformed HTTP response: status line \"";
  for (const unsigned char c : line.substr(0, 64)) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out + "\"";
}

using Fail = TransportError;

constexpr size_t kMaxHeadBytes = 1u << 20;
constexpr size_t kReadChunk = 64u << 10;

// Buffered reading of one response.
class ResponseReader {
 public:
  explicit ResponseReader(ByteSource& c) : conn_(c) {}

  size_t bytesRead() const { return total_; }

  // A line without its CRLF; an error at the end of the stream.
  Result<std::string, Fail> line(size_t limit) {
    for (;;) {
      if (auto nl = buf_.find('\n', pos_); nl != std::string::npos) {
        // The same limit however the bytes were split into reads (found by http_response_fuzz).
        if (nl - pos_ > limit + 1) return Fail{"malformed HTTP response: line too long"};
        size_t end = nl;
        if (end > pos_ && buf_[end - 1] == '\r') --end;
        std::string out = buf_.substr(pos_, end - pos_);
        pos_ = nl + 1;
        return out;
      }
      if (buf_.size() - pos_ > limit + 1) return Fail{"malformed HTTP response: line too long"};
      auto n = fill();
      if (!n.ok()) return n.error();
      if (*n == 0) {
        Fail f{total_ == 0 ? "EOF before the response" : "unexpected EOF"};
        f.connectionLost = true;
        return f;
      }
    }
  }

  // Up to `max` buffered or freshly read bytes; empty at the end of the stream.
  Result<std::string_view, Fail> some(size_t max) {
    if (pos_ == buf_.size()) {
      auto n = fill();
      if (!n.ok()) return n.error();
      if (*n == 0) return std::string_view();
    }
    const size_t take = std::min(max, buf_.size() - pos_);
    std::string_view out(buf_.data() + pos_, take);
    pos_ += take;
    return out;
  }

 private:
  Result<size_t, Fail> fill() {
    if (pos_ == buf_.size()) {
      buf_.clear();
      pos_ = 0;
    } else if (pos_ > kReadChunk) {
      buf_.erase(0, pos_);
      pos_ = 0;
    }
    const size_t old = buf_.size();
    buf_.resize(old + kReadChunk);
    auto n = conn_.readSome(buf_.data() + old, kReadChunk);
    buf_.resize(old + (n.ok() ? *n : 0));
    if (n.ok()) total_ += *n;
    return n;
  }

  ByteSource& conn_;
  std::string buf_;
  size_t pos_ = 0;
  size_t total_ = 0;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

struct ResponseHead {
  HttpHead head;
  bool http10 = false;
  bool chunked = false;
  bool gzip = false;
  bool connectionClose = false;
  bool connectionKeepAlive = false;
  std::optional<uint64_t> contentLength;
};

Result<ResponseHead, Fail> readHead(ResponseReader& r) {
  for (;;) {
    auto status = r.line(kMaxHeadBytes);
    if (!status.ok()) return status.error();
    ResponseHead h;
    // "HTTP/1.1 200 OK"
    const std::string& s = *status;
    if (s.size() < 12 || s.compare(0, 5, "HTTP/") != 0 || s[8] != ' ')
      return Fail{malformedStatusLine(s)};
    h.http10 = s.compare(0, 8, "HTTP/1.0") == 0;
    int code = 0;
    for (size_t i = 9; i < 12; ++i) {
      if (s[i] < '0' || s[i] > '9') return Fail{malformedStatusLine(s)};
      code = code * 10 + (s[i] - '0');
    }
    h.head.status = code;
    size_t headBytes = 0;
    for (;;) {
      auto line = r.line(kMaxHeadBytes);
      if (!line.ok()) return line.error();
      if (line->empty()) break;
      headBytes += line->size();
      if (headBytes > kMaxHeadBytes) return Fail{"malformed HTTP response: headers too large"};
      const auto colon = line->find(':');
      if (colon == std::string::npos) continue;
      const std::string name = asciiLower(line->substr(0, colon));
      const std::string_view value = trim(std::string_view(*line).substr(colon + 1));
      if (name == "content-length") {
        uint64_t n = 0;
        for (char c : value) {
          if (c < '0' || c > '9') return Fail{"malformed HTTP response: Content-Length"};
          n = n * 10 + static_cast<uint64_t>(c - '0');
        }
        h.contentLength = n;
      } else if (name == "transfer-encoding") {
        h.chunked = asciiLower(std::string(value)).find("chunked") != std::string::npos;
      } else if (name == "content-encoding") {
        h.gzip = asciiLower(std::string(value)) == "gzip";
      } else if (name == "connection") {
        const std::string v = asciiLower(std::string(value));
        h.connectionClose = v.find("close") != std::string::npos;
        h.connectionKeepAlive = v.find("keep-alive") != std::string::npos;
      } else if (name == "retry-after") {
        h.head.retryAfter = std::string(value);
      } else if (name == "content-type") {
        h.head.contentType = std::string(value);
      }
    }
    // 1xx interim responses (100 Continue) precede the real one; 101 never comes (no Upgrade sent).
    if (code >= 100 && code < 200) continue;
    return h;
  }
}

// Streams gunzipped bytes to the sink.
class Gunzip {
 public:
  Gunzip() {
    std::memset(&z_, 0, sizeof z_);
    ok_ = inflateInit2(&z_, 16 + MAX_WBITS) == Z_OK;
  }
  ~Gunzip() {
    if (ok_) inflateEnd(&z_);
  }
  Gunzip(const Gunzip&) = delete;
  Gunzip& operator=(const Gunzip&) = delete;

  // false: the data is not gzip (error set) or the sink stopped.
  bool feed(std::string_view in, const std::function<bool(std::string_view)>& sink, std::string& error) {
    if (!ok_) {
      error = "gzip: cannot initialise zlib";
      return false;
    }
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z_.avail_in = static_cast<uInt>(in.size());
    char out[kReadChunk];
    while (z_.avail_in > 0 && !ended_) {
      z_.next_out = reinterpret_cast<Bytef*>(out);
      z_.avail_out = sizeof out;
      const int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
        error = std::string("gzip: ") + (z_.msg != nullptr ? z_.msg : "invalid data");
        return false;
      }
      const size_t produced = sizeof out - z_.avail_out;
      if (produced > 0 && !sink(std::string_view(out, produced))) return false;
      if (rc == Z_STREAM_END) ended_ = true;
      if (rc == Z_BUF_ERROR && produced == 0) break;
    }
    return true;
  }

 private:
  z_stream z_;
  bool ok_ = false;
  bool ended_ = false;
};

// Reads the body as the head describes it. Returns whether the connection may be reused.
Result<bool, Fail> readBody(ResponseReader& r, const ResponseHead& h, bool isHead,
                            const std::function<bool(std::string_view)>& onBody) {
  const int32_t code = h.head.status;
  if (isHead || code == 204 || code == 304) return !h.connectionClose;
  std::optional<Gunzip> gunzip;
  if (h.gzip) gunzip.emplace();
  std::string gzipError;
  bool stopped = false;
  auto deliver = [&](std::string_view bytes) -> Result<void, Fail> {
    if (bytes.empty() || stopped) return {};
    bool more = gunzip ? gunzip->feed(bytes, onBody, gzipError) : onBody(bytes);
    if (!gzipError.empty()) return Fail{gzipError};
    if (!more) stopped = true;
    return {};
  };
  if (h.chunked) {
    for (;;) {
      auto sizeLine = r.line(4096);
      if (!sizeLine.ok()) return sizeLine.error();
      uint64_t size = 0;
      size_t digits = 0;
      for (char c : *sizeLine) {
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (v < 0) break;
        if (++digits > 15) return Fail{"malformed HTTP response: chunk size"};
        size = size * 16 + static_cast<uint64_t>(v);
      }
      if (digits == 0) return Fail{"malformed HTTP response: chunk size"};
      if (size == 0) {
        for (;;) {  // trailers up to the empty line
          auto trailer = r.line(kMaxHeadBytes);
          if (!trailer.ok()) return trailer.error();
          if (trailer->empty()) break;
        }
        return !h.connectionClose && !stopped;
      }
      while (size > 0) {
        auto piece = r.some(static_cast<size_t>(std::min<uint64_t>(size, kReadChunk)));
        if (!piece.ok()) return piece.error();
        if (piece->empty()) return Fail{"unexpected EOF in a chunked body"};
        size -= piece->size();
        if (auto d = deliver(*piece); !d.ok()) return d.error();
        if (stopped) return false;
      }
      auto crlf = r.line(2);
      if (!crlf.ok()) return crlf.error();
      if (!crlf->empty()) return Fail{"malformed chunked encoding: no CRLF after a chunk"};
    }
  }
  if (h.contentLength) {
    uint64_t left = *h.contentLength;
    while (left > 0) {
      auto piece = r.some(static_cast<size_t>(std::min<uint64_t>(left, kReadChunk)));
      if (!piece.ok()) return piece.error();
      if (piece->empty()) return Fail{"unexpected EOF: " + std::to_string(left) + " bytes of the body missing"};
      left -= piece->size();
      if (auto d = deliver(*piece); !d.ok()) return d.error();
      if (stopped) return false;
    }
    return !h.connectionClose && !(h.http10 && !h.connectionKeepAlive);
  }
  for (;;) {  // to the end of the stream
    auto piece = r.some(kReadChunk);
    if (!piece.ok()) return piece.error();
    if (piece->empty()) return false;
    if (auto d = deliver(*piece); !d.ok()) return d.error();
    if (stopped) return false;
  }
}

}  // namespace

Result<bool, TransportError> readResponse(ByteSource& source, bool isHead,
                                          const std::function<void(const HttpHead&)>& onHead,
                                          const std::function<bool(std::string_view)>& onBody,
                                          size_t& bytesRead) {
  ResponseReader reader(source);
  auto head = readHead(reader);
  bytesRead = reader.bytesRead();
  if (!head.ok()) return head.error();
  onHead(head->head);
  auto reusable = readBody(reader, *head, isHead, onBody);
  bytesRead = reader.bytesRead();
  return reusable;
}

}  // namespace ks::client::rest
