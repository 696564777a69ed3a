#include "pkg/api/decode_context.h"

namespace ks::api {

bool DecodeContext::fail(std::string_view message) {
  if (error_) return false;
  std::string p = path();
  if (p.empty()) {
    error_.emplace(std::string(message));
  } else {
    p += ": ";
    p += message;
    error_.emplace(std::move(p));
  }
  return false;
}

std::string DecodeContext::path() const {
  std::string p;
  for (const Segment& s : path_) {
    if (s.isIndex) {
      p += '[';
      p += std::to_string(s.index);
      p += ']';
    } else {
      if (!p.empty()) p += '.';
      p += s.key;
    }
  }
  return p;
}

}  // namespace ks::api
