#include "pkg/server/http_request.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <utility>

#include "pkg/util/strings.h"

namespace ks::server {

namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decodes `s` ('+' as space when `plusIsSpace`); nullopt on a bad escape.
std::optional<std::string> percentDecode(std::string_view s, bool plusIsSpace) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size()) return std::nullopt;
      int hi = hexValue(s[i + 1]);
      int lo = hexValue(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plusIsSpace) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

bool isTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

// HTTP's optional whitespace around a header value: spaces and tabs only.
std::string_view trimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

const std::string* findHeader(const Request& req, std::string_view name) {
  for (const auto& [k, v] : req.headers) {
    if (k == name) return &v;
  }
  return nullptr;
}

RequestRead reject(std::string method, int status, std::string message) {
  RequestRead r;
  r.rejection = Response::error(status, std::move(message));
  r.method = std::move(method);
  return r;
}

}  // namespace

Result<Request> parseHead(std::string_view head) {
  Request req;
  size_t eol = head.find("\r\n");
  std::string_view line = head.substr(0, eol);
  size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos || sp1 == 0) return Error("malformed request line");
  size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return Error("malformed request line");
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (!std::all_of(method.begin(), method.end(), isTokenChar)) return Error("malformed method");
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return Error("unsupported HTTP version");
  if (target.empty() || target.front() != '/') return Error("malformed request target");
  for (char c : target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return Error("malformed request target");
  }
  req.method = std::string(method);
  size_t q = target.find('?');
  auto path = percentDecode(target.substr(0, q), false);
  if (!path) return Error("malformed path escape");
  req.path = std::move(*path);
  if (q != std::string_view::npos) {
    req.rawQuery = std::string(target.substr(q + 1));
    std::string_view rest = req.rawQuery;
    while (!rest.empty()) {
      size_t amp = rest.find('&');
      std::string_view part = rest.substr(0, amp);
      rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
      if (part.empty()) continue;
      size_t eq = part.find('=');
      auto key = percentDecode(part.substr(0, eq), true);
      auto value =
          percentDecode(eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1), true);
      if (!key || !value) return Error("malformed query escape");
      req.query.emplace_back(std::move(*key), std::move(*value));
    }
  }
  std::string_view rest = eol == std::string_view::npos ? std::string_view() : head.substr(eol + 2);
  while (!rest.empty()) {
    size_t e = rest.find("\r\n");
    std::string_view h = rest.substr(0, e);
    rest = e == std::string_view::npos ? std::string_view() : rest.substr(e + 2);
    if (h.empty()) continue;
    size_t colon = h.find(':');
    if (colon == std::string_view::npos || colon == 0) return Error("malformed header line");
    std::string_view name = h.substr(0, colon);
    if (!std::all_of(name.begin(), name.end(), isTokenChar)) return Error("malformed header name");
    req.headers.emplace_back(asciiLower(name), std::string(trimOws(h.substr(colon + 1))));
  }
  return req;
}

RequestRead readRequest(const ReadSome& read) {
  std::string buf;
  size_t headEnd = std::string::npos;
  char chunk[8192];
  while ((headEnd = buf.find("\r\n\r\n")) == std::string::npos) {
    // A terminator still to come would start in the last 3 bytes at the earliest: past this the head is
    // too large however the rest arrives.
    if (buf.size() > kMaxHeaderBytes + 3) return reject("", 431, "431 Request Header Fields Too Large");
    size_t n = read(chunk, sizeof(chunk));
    if (n == 0) {
      if (buf.empty()) return {};
      return reject("", 400, "400 Bad Request: incomplete request");
    }
    buf.append(chunk, n);
  }
  if (headEnd > kMaxHeaderBytes) return reject("", 431, "431 Request Header Fields Too Large");
  auto parsed = parseHead(std::string_view(buf).substr(0, headEnd));
  if (!parsed) return reject("", 400, "400 Bad Request: " + parsed.error().message());
  Request req = std::move(*parsed);
  if (findHeader(req, "transfer-encoding") != nullptr) {
    return reject(req.method, 501, "501 Not Implemented: Transfer-Encoding");
  }
  size_t contentLength = 0;
  if (const std::string* cl = findHeader(req, "content-length")) {
    auto isDigit = [](char c) { return c >= '0' && c <= '9'; };
    if (cl->empty() || cl->size() > 12 || !std::all_of(cl->begin(), cl->end(), isDigit)) {
      return reject(req.method, 400, "400 Bad Request: bad Content-Length");
    }
    // Two lengths that differ would frame the body two ways (request smuggling): refused, as Go's server
    // refuses them.
    for (const auto& [name, value] : req.headers) {
      if (name == "content-length" && value != *cl) return reject(req.method, 400, "400 Bad Request");
    }
    contentLength = std::stoull(*cl);
    if (contentLength > kMaxBodyBytes) return reject(req.method, 413, "413 Request Entity Too Large");
  }
  req.body = buf.substr(headEnd + 4);
  while (req.body.size() < contentLength) {
    size_t n = read(chunk, sizeof(chunk));
    if (n == 0) return {};
    req.body.append(chunk, n);
  }
  req.body.resize(contentLength);
  RequestRead r;
  r.request = std::move(req);
  return r;
}

}  // namespace ks::server
