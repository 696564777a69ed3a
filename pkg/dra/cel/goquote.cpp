#include "pkg/dra/cel/goquote.h"

#include <cstdint>
#include <cstdio>

namespace ks::cel {
namespace {

// Decodes the UTF-8 sequence at s[i]; returns its length, 0 when it is not valid UTF-8.
size_t decodeRune(std::string_view s, size_t i, uint32_t& rune) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = 0;
  uint32_t min = 0;
  if (c < 0x80) {
    rune = c;
    return 1;
  }
  if ((c >> 5) == 0x6) {
    n = 2, rune = c & 0x1F, min = 0x80;
  } else if ((c >> 4) == 0xE) {
    n = 3, rune = c & 0x0F, min = 0x800;
  } else if ((c >> 3) == 0x1E) {
    n = 4, rune = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    rune = (rune << 6) | (cc & 0x3F);
  }
  if (rune < min || rune > 0x10FFFF || (rune >= 0xD800 && rune <= 0xDFFF)) return 0;
  return n;
}

// Go's unicode.IsPrint, approximated for non-ASCII: everything but the C1 controls, the soft hyphen,
// spaces other than U+0020, format characters, line and paragraph separators and private use.
bool isPrint(uint32_t r) {
  if (r < 0x80) return r >= 0x20 && r < 0x7F;
  if (r < 0xA1 || r == 0xAD) return false;
  if (r == 0x1680 || (r >= 0x2000 && r <= 0x200F) || (r >= 0x2028 && r <= 0x202F) ||
      (r >= 0x205F && r <= 0x206F) || r == 0x3000 || r == 0xFEFF || (r >= 0xFFF9 && r <= 0xFFFB))
    return false;
  if ((r >= 0xE000 && r <= 0xF8FF) || r >= 0xF0000) return false;
  return true;
}

void appendHex(std::string& out, const char* prefix, uint32_t v, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%0*x", digits, v);
  out += prefix;
  out += buf;
}

}  // namespace

std::string goQuote(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    uint32_t r = 0;
    const size_t n = decodeRune(s, i, r);
    if (n == 0) {
      appendHex(out, "\\x", static_cast<unsigned char>(s[i]), 2);
      ++i;
      continue;
    }
    i += n;
    if (r == '"' || r == '\\') {
      out += '\\';
      out += static_cast<char>(r);
    } else if (isPrint(r)) {
      out.append(s.substr(i - n, n));
    } else if (r == '\a') {
      out += "\\a";
    } else if (r == '\b') {
      out += "\\b";
    } else if (r == '\f') {
      out += "\\f";
    } else if (r == '\n') {
      out += "\\n";
    } else if (r == '\r') {
      out += "\\r";
    } else if (r == '\t') {
      out += "\\t";
    } else if (r == '\v') {
      out += "\\v";
    } else if (r < ' ' || r == 0x7F) {
      appendHex(out, "\\x", r, 2);
    } else if (r < 0x10000) {
      appendHex(out, "\\u", r, 4);
    } else {
      appendHex(out, "\\U", r, 8);
    }
  }
  return out + "\"";
}

}  // namespace ks::cel
