// Ported from k8s.io/apimachinery/pkg/util/validation/field (errors.go, path.go) and the aggregate
// joining of pkg/util/errors.

#include "pkg/api/field.h"

#include <algorithm>
#include <utility>

#include "pkg/util/strings.h"

namespace ks::api {

std::string FieldError::message() const {
  std::string out = field;
  out += ": ";
  switch (type) {
    case Type::kRequired:
      out += "Required value";
      break;
    case Type::kForbidden:
      out += "Forbidden";
      break;
    case Type::kDuplicate:
      out += "Duplicate value: " + badValue;
      break;
    case Type::kInvalid:
      out += "Invalid value: " + badValue;
      break;
    case Type::kNotSupported:
      out += "Unsupported value: " + badValue;
      break;
  }
  if (!detail.empty()) {
    out += ": ";
    out += detail;
  }
  return out;
}

std::string aggregateMessages(const std::vector<std::string>& messages) {
  std::vector<std::string> unique;
  for (const std::string& m : messages) {
    if (std::find(unique.begin(), unique.end(), m) == unique.end()) unique.push_back(m);
  }
  if (unique.empty()) return "";
  if (unique.size() == 1) return unique[0];
  return "[" + join(unique, ", ") + "]";
}

std::string aggregateFieldErrors(const FieldErrorList& errors) {
  std::vector<std::string> messages;
  messages.reserve(errors.size());
  for (const FieldError& e : errors) messages.push_back(e.message());
  return aggregateMessages(messages);
}

namespace field {

std::string child(std::string_view path, std::string_view name) {
  std::string out(path);
  if (!out.empty()) out += '.';
  out += name;
  return out;
}

std::string index(std::string_view path, size_t i) {
  std::string out(path);
  out += '[';
  out += std::to_string(i);
  out += ']';
  return out;
}

std::string quoteValue(std::string_view s) {
  return quote(s);
}

namespace {

// utf8.DecodeRuneInString: the rune and its length, or (-1, 1) for an invalid encoding.
std::pair<int32_t, size_t> decodeRune(std::string_view s) {
  auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  auto cont = [&](size_t i, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return i < s.size() && b(i) >= lo && b(i) <= hi;
  };
  const unsigned c = b(0);
  if (c < 0x80) return {static_cast<int32_t>(c), 1};
  if (c >= 0xC2 && c <= 0xDF && cont(1)) return {static_cast<int32_t>(((c & 0x1F) << 6) | (b(1) & 0x3F)), 2};
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80;
    const unsigned hi = c == 0xED ? 0x9F : 0xBF;
    if (cont(1, lo, hi) && cont(2)) {
      return {static_cast<int32_t>(((c & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F)), 3};
    }
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80;
    const unsigned hi = c == 0xF4 ? 0x8F : 0xBF;
    if (cont(1, lo, hi) && cont(2) && cont(3)) {
      return {static_cast<int32_t>(((c & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) |
                                   (b(3) & 0x3F)),
              4};
    }
  }
  return {-1, 1};
}

}  // namespace

// encoding/json's string encoder with HTML escaping (json.Marshal's default).
std::string jsonValue(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
        case '\\':
          out += '\\';
          out += static_cast<char>(c);
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        default:
          if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 0xF];
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    auto [rune, size] = decodeRune(s.substr(i));
    if (rune < 0) {
      out += "\\ufffd";
    } else if (rune == 0x2028 || rune == 0x2029) {
      out += "\\u202";
      out += kHex[rune & 0xF];
    } else {
      out += s.substr(i, size);
    }
    i += size;
  }
  out += '"';
  return out;
}

FieldError required(std::string path, std::string detail) {
  return FieldError{FieldError::Type::kRequired, std::move(path), "", std::move(detail)};
}

FieldError forbidden(std::string path, std::string detail) {
  return FieldError{FieldError::Type::kForbidden, std::move(path), "", std::move(detail)};
}

FieldError invalid(std::string path, std::string badValue, std::string detail) {
  return FieldError{FieldError::Type::kInvalid, std::move(path), std::move(badValue), std::move(detail)};
}

FieldError duplicate(std::string path, std::string badValue) {
  return FieldError{FieldError::Type::kDuplicate, std::move(path), std::move(badValue), ""};
}

FieldError notSupported(std::string path, std::string badValue,
                        const std::vector<std::string_view>& supported) {
  std::string detail;
  if (!supported.empty()) {
    detail = "supported values: ";
    for (size_t i = 0; i < supported.size(); ++i) {
      if (i > 0) detail += ", ";
      detail += quote(supported[i]);
    }
  }
  return FieldError{FieldError::Type::kNotSupported, std::move(path), std::move(badValue), std::move(detail)};
}

}  // namespace field

}  // namespace ks::api
