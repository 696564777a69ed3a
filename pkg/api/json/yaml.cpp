// YAML -> JSON (go-yaml v2 scalar resolution, as sigs.k8s.io/yaml) and JSON -> block YAML.

#include "pkg/api/json/yaml.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

namespace ks::api {

namespace {

using Json = nlohmann::json;

constexpr int kMaxDepth = 1000;

std::string markPrefix(const YAML::Mark& m) {
  if (m.line < 0) return "yaml: ";
  return "yaml: line " + std::to_string(m.line + 1) + ", column " + std::to_string(m.column + 1) + ": ";
}

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// Go's strconv.ParseInt/ParseUint with base 0 (after '_' removal): sign, 0x/0o/0b prefixes, leading-0 octal.
// Returns the magnitude and sign; nullopt when not an integer or beyond 64 bits.
struct ParsedInt {
  bool negative = false;
  uint64_t magnitude = 0;
};

std::optional<ParsedInt> parseGoInt(std::string_view s) {
  ParsedInt r;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    r.negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  unsigned base = 10;
  if (s.size() >= 2 && s[0] == '0') {
    char p = s[1];
    if (p == 'x' || p == 'X') {
      base = 16;
      s.remove_prefix(2);
    } else if (p == 'o' || p == 'O') {
      base = 8;
      s.remove_prefix(2);
    } else if (p == 'b' || p == 'B') {
      base = 2;
      s.remove_prefix(2);
    } else {
      base = 8;
      s.remove_prefix(1);
    }
    if (s.empty()) return std::nullopt;
  }
  for (char c : s) {
    unsigned d;
    if (isDigit(c))
      d = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      d = static_cast<unsigned>(c - 'A' + 10);
    else
      return std::nullopt;
    if (d >= base) return std::nullopt;
    if (r.magnitude > (UINT64_MAX - d) / base) return std::nullopt;
    r.magnitude = r.magnitude * base + d;
  }
  return r;
}

// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$  (go-yaml's yamlStyleFloat)
bool isYamlStyleFloat(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    size_t start = i;
    while (i < s.size() && isDigit(s[i])) ++i;
    if (i == start) return false;
  } else {
    size_t start = i;
    while (i < s.size() && isDigit(s[i])) ++i;
    if (i == start) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && isDigit(s[i])) ++i;
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t start = i;
    while (i < s.size() && isDigit(s[i])) ++i;
    if (i == start) return false;
  }
  return i == s.size();
}

std::optional<double> parseFloat(std::string_view s) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  double d = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return d;
}

// go-yaml v2 resolve() for an untagged plain scalar. Non-finite floats come back as doubles; the caller
// rejects them (JSON cannot carry them).
Json resolvePlain(std::string_view s) {
  static const std::set<std::string_view> kTrue = {"y",    "Y",    "yes", "Yes", "YES", "true",
                                                   "True", "TRUE", "on",  "On",  "ON"};
  static const std::set<std::string_view> kFalse = {"n",     "N",     "no",  "No",  "NO", "false",
                                                    "False", "FALSE", "off", "Off", "OFF"};
  static const std::set<std::string_view> kNull = {"", "~", "null", "Null", "NULL"};
  if (kNull.count(s)) return nullptr;
  char c = s[0];
  bool hinted = isDigit(c) || c == '+' || c == '-' || c == '.' ||
                std::string_view("yYnNtTfFoO~").find(c) != std::string_view::npos;
  if (!hinted) return std::string(s);
  if (kTrue.count(s)) return true;
  if (kFalse.count(s)) return false;
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return std::nan("");
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == "+.inf" || s == "+.Inf" || s == "+.INF")
    return HUGE_VAL;
  if (s == "-.inf" || s == "-.Inf" || s == "-.INF") return -HUGE_VAL;
  if (c == '.') {
    if (isYamlStyleFloat(s)) {
      if (auto d = parseFloat(s)) return *d;
    }
    return std::string(s);
  }
  if (isDigit(c) || c == '+' || c == '-') {
    std::string plain;
    plain.reserve(s.size());
    for (char ch : s) {
      if (ch != '_') plain += ch;
    }
    if (auto i = parseGoInt(plain)) {
      if (!i->negative) {
        if (i->magnitude <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(i->magnitude);
        return i->magnitude;
      }
      if (i->magnitude <= static_cast<uint64_t>(INT64_MAX)) return -static_cast<int64_t>(i->magnitude);
      if (i->magnitude == static_cast<uint64_t>(INT64_MAX) + 1) return INT64_MIN;
    }
    if (isYamlStyleFloat(plain)) {
      if (auto d = parseFloat(plain)) return *d;
    }
  }
  return std::string(s);
}

// One UTF-8 sequence at text[i]: its width and code point, or go-yaml's reader message for why the bytes
// there are not one (overlong forms, surrogates and the range are left to the caller).
struct Utf8Sequence {
  size_t width = 0;
  char32_t value = 0;
  const char* error = nullptr;
};

Utf8Sequence decodeUtf8(std::string_view text, size_t i) {
  const auto octet = static_cast<unsigned char>(text[i]);
  Utf8Sequence seq;
  if ((octet & 0x80) == 0x00) {
    seq = {1, static_cast<char32_t>(octet & 0x7F)};
  } else if ((octet & 0xE0) == 0xC0) {
    seq = {2, static_cast<char32_t>(octet & 0x1F)};
  } else if ((octet & 0xF0) == 0xE0) {
    seq = {3, static_cast<char32_t>(octet & 0x0F)};
  } else if ((octet & 0xF8) == 0xF0) {
    seq = {4, static_cast<char32_t>(octet & 0x07)};
  } else {
    return {0, 0, "invalid leading UTF-8 octet"};
  }
  if (seq.width > text.size() - i) return {0, 0, "incomplete UTF-8 octet sequence"};
  for (size_t k = 1; k < seq.width; ++k) {
    const auto trailing = static_cast<unsigned char>(text[i + k]);
    if ((trailing & 0xC0) != 0x80) return {0, 0, "invalid trailing UTF-8 octet"};
    seq.value = (seq.value << 6) + (trailing & 0x3F);
  }
  return seq;
}

// yaml-cpp 0.7 decodes the escapes "\N" and "\_" of double-quoted scalars to the single bytes 0x85 and 0xA0
// (Latin-1) instead of U+0085 and U+00A0 in UTF-8, as go-yaml does. The input is checked to be UTF-8, so
// these are the only bytes of a scalar that start no valid sequence: each is re-encoded as its code point.
std::string latin1EscapesAsUtf8(const std::string& scalar) {
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i < scalar.size();) {
    if (const Utf8Sequence seq = decodeUtf8(scalar, i); seq.error == nullptr) {
      i += seq.width;
      continue;
    }
    const auto octet = static_cast<unsigned char>(scalar[i]);
    out.append(scalar, copied, i - copied);
    out += static_cast<char>(0xC0 | (octet >> 6));
    out += static_cast<char>(0x80 | (octet & 0x3F));
    copied = ++i;
  }
  if (copied == 0) return scalar;
  out.append(scalar, copied, std::string::npos);
  return out;
}

class Converter {
 public:
  explicit Converter(size_t budget) : budget_(budget) {}

  bool convert(const YAML::Node& n, Json& out, int depth) {
    if (depth > kMaxDepth) return fail(n.Mark(), "exceeded max depth of " + std::to_string(kMaxDepth));
    if (budget_ == 0) return fail(n.Mark(), "document expands to too many nodes (alias expansion?)");
    --budget_;
    switch (n.Type()) {
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        out = nullptr;
        return true;
      case YAML::NodeType::Scalar:
        return scalar(n, out);
      case YAML::NodeType::Sequence: {
        out = Json::array();
        for (const auto& e : n) {
          Json v;
          if (!convert(e, v, depth + 1)) return false;
          out.push_back(std::move(v));
        }
        return true;
      }
      case YAML::NodeType::Map:
        out = Json::object();
        return mapping(n, out, depth);
    }
    out = nullptr;
    return true;
  }

  const std::string& error() const { return error_; }

 private:
  bool fail(const YAML::Mark& m, const std::string& msg) {
    if (error_.empty()) error_ = markPrefix(m) + msg;
    return false;
  }

  bool scalar(const YAML::Node& n, Json& out) {
    const std::string& tag = n.Tag();
    const std::string value = latin1EscapesAsUtf8(n.Scalar());
    constexpr std::string_view kPrefix = "tag:yaml.org,2002:";
    if (tag == "?") {
      out = resolvePlain(value);
    } else if (tag.rfind(kPrefix, 0) == 0) {
      std::string_view t = std::string_view(tag).substr(kPrefix.size());
      if (t == "str" || t == "binary" || t == "timestamp") {
        out = value;
      } else {
        out = resolvePlain(value);
        bool ok = (t == "int" && out.is_number_integer()) || (t == "float" && out.is_number()) ||
                  (t == "bool" && out.is_boolean()) || (t == "null" && out.is_null());
        if (t == "float" && out.is_number_integer()) out = out.get<double>();
        if (!ok && (t == "int" || t == "float" || t == "bool" || t == "null")) {
          return fail(n.Mark(), "cannot decode !!str `" + value + "` as a !!" + std::string(t));
        }
      }
    } else {
      out = value;  // quoted ("!"), block scalars and application tags
    }
    if (out.is_number_float()) {
      double d = out.get<double>();
      if (!std::isfinite(d)) {
        return fail(n.Mark(), "unsupported value " + value + " (not representable in JSON)");
      }
      // sigs.k8s.io/yaml marshals the float64 with Go's encoding/json, which prints integral values
      // below 1e21 without a fraction ("1e3" -> 1000), so they decode into integer fields.
      if (std::trunc(d) == d && std::fabs(d) < 1e21) {
        if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
          out = static_cast<int64_t>(d);
        } else if (d > 0 && d < 18446744073709551616.0) {
          out = static_cast<uint64_t>(d);
        }
      }
    }
    return true;
  }

  bool keyString(const YAML::Node& k, std::string& out) {
    if (k.Type() == YAML::NodeType::Null) return fail(k.Mark(), "unsupported map key null");
    if (k.Type() != YAML::NodeType::Scalar) return fail(k.Mark(), "unsupported map key (not a scalar)");
    Json v;
    if (!scalar(k, v)) return false;
    if (v.is_string()) {
      out = v.get<std::string>();
    } else if (v.is_boolean()) {
      out = v.get<bool>() ? "true" : "false";
    } else if (v.is_number_unsigned()) {
      out = std::to_string(v.get<uint64_t>());
    } else if (v.is_number_integer()) {
      out = std::to_string(v.get<int64_t>());
    } else if (v.is_number_float()) {
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof(buf), static_cast<float>(v.get<double>()));
      out.assign(buf, r.ptr);
    } else {
      return fail(k.Mark(), "unsupported map key null");
    }
    return true;
  }

  bool mapping(const YAML::Node& n, Json& out, int depth) {
    std::vector<Json> merged;
    for (auto it = n.begin(); it != n.end(); ++it) {
      // Copies: it-> yields a temporary pair proxy (references into it would dangle).
      const YAML::Node k = it->first;
      const YAML::Node v = it->second;
      if (k.Type() == YAML::NodeType::Scalar && k.Tag() == "?" && k.Scalar() == "<<") {
        Json m;
        if (!convert(v, m, depth + 1)) return false;
        if (m.is_object()) {
          merged.push_back(std::move(m));
        } else if (m.is_array()) {
          for (auto& e : m) {
            if (!e.is_object())
              return fail(v.Mark(), "map merge requires map or sequence of maps as the value");
            merged.push_back(std::move(e));
          }
        } else {
          return fail(v.Mark(), "map merge requires map or sequence of maps as the value");
        }
        continue;
      }
      std::string key;
      if (!keyString(k, key)) return false;
      Json value;
      if (!convert(v, value, depth + 1)) return false;
      out[key] = std::move(value);
    }
    // Explicit keys win over merged ones; earlier merged maps win over later ones.
    for (auto& m : merged) {
      for (auto& [k, v] : m.items()) {
        if (!out.contains(k)) out[k] = std::move(v);
      }
    }
    return true;
  }

  size_t budget_;
  std::string error_;
};

// ---- JSON -> YAML ----------------------------------------------------------------------------------

// A double-quoted YAML scalar. JSON's escapes are YAML's, but JSON leaves DEL, the C1 controls and
// U+FFFE/U+FFFF raw, which YAML readers (go-yaml's, ours) refuse: those get \u escapes too.
std::string quoted(const std::string& s) {
  const std::string json = Json(s).dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    const auto c = static_cast<unsigned char>(json[i]);
    const auto next = i + 1 < json.size() ? static_cast<unsigned char>(json[i + 1]) : 0;
    if (c == 0x7F) {
      out += "\\u007f";
    } else if (c == 0xC2 && next >= 0x80 && next <= 0x9F) {  // C1, and NEL, a line break in YAML 1.1
      constexpr std::string_view kHex = "0123456789abcdef";
      out += "\\u00";
      out += kHex[next >> 4];
      out += kHex[next & 0xF];
      ++i;
    } else if (c == 0xEF && i + 2 < json.size() && next == 0xBF &&
               (static_cast<unsigned char>(json[i + 2]) & 0xFE) == 0xBE) {
      out += json[i + 2] == '\xBE' ? "\\ufffe" : "\\uffff";
      i += 2;
    } else {
      out += json[i];
    }
  }
  return out;
}

bool needsQuotes(const std::string& s) {
  if (s.empty()) return true;
  if (!resolvePlain(s).is_string()) return true;
  constexpr std::string_view kIndicators = "-?:,[]{}#&*!|>'\"%@`";
  unsigned char first = static_cast<unsigned char>(s.front());
  unsigned char last = static_cast<unsigned char>(s.back());
  if (kIndicators.find(static_cast<char>(first)) != std::string_view::npos) return true;
  if (first == ' ' || last == ' ' || last == ':') return true;
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f || c == 0xC2 || c == 0xEF) return true;  // controls; C1 and U+FFFx maybe
  }
  if (s.find(": ") != std::string::npos || s.find(" #") != std::string::npos) return true;
  if (s == "<<") return true;
  // At the start of a line "..." ends the document (as go-yaml, quote any scalar that begins with it).
  if (s.rfind("...", 0) == 0) return true;
  return false;
}

std::string scalarText(const Json& j) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    return needsQuotes(s) ? quoted(s) : s;
  }
  if (j.is_object()) return "{}";
  if (j.is_array()) return "[]";
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

bool isBlock(const Json& j) {
  return (j.is_object() || j.is_array()) && !j.empty();
}

void writeYaml(std::string& out, const Json& j, size_t indent, bool inlineFirst, int depth);

// YAML allows implicit keys of at most 1024 characters; like go-yaml's emitter, a key longer than 128 is
// written as an explicit key ("? key" on its own line, then ": value").
constexpr size_t kMaxSimpleKeyLength = 128;

void writeValueAfterKey(std::string& out, const Json& v, size_t indent, int depth) {
  if (v.is_object() && !v.empty()) {
    out += '\n';
    writeYaml(out, v, indent + 2, false, depth + 1);
  } else if (v.is_array() && !v.empty()) {
    out += '\n';
    writeYaml(out, v, indent, false, depth + 1);  // go-yaml style: "- " at the key's column
  } else {
    out += ' ';
    out += scalarText(v);
    out += '\n';
  }
}

void writeYaml(std::string& out, const Json& j, size_t indent, bool inlineFirst, int depth) {
  if (depth > kMaxDepth) {  // pathological nesting: flow style is still valid YAML
    if (!inlineFirst) out.append(indent, ' ');
    out += j.dump(-1, ' ', false, Json::error_handler_t::replace);
    out += '\n';
    return;
  }
  bool first = true;
  auto pad = [&] {
    if (!(first && inlineFirst)) out.append(indent, ' ');
    first = false;
  };
  if (j.is_object() && !j.empty()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      pad();
      const std::string key = needsQuotes(it.key()) ? quoted(it.key()) : it.key();
      if (key.size() <= kMaxSimpleKeyLength) {
        out += key;
        out += ':';
        writeValueAfterKey(out, it.value(), indent, depth);
        continue;
      }
      out += "? ";
      out += key;
      out += '\n';
      out.append(indent, ' ');
      out += ':';
      if (isBlock(it.value())) {
        out += '\n';
        writeYaml(out, it.value(), indent + 2, false, depth + 1);
      } else {
        out += ' ';
        out += scalarText(it.value());
        out += '\n';
      }
    }
  } else if (j.is_array() && !j.empty()) {
    for (const Json& e : j) {
      pad();
      out += '-';
      if (isBlock(e)) {
        out += ' ';
        writeYaml(out, e, indent + 2, true, depth + 1);
      } else {
        out += ' ';
        out += scalarText(e);
        out += '\n';
      }
    }
  } else {
    pad();
    out += scalarText(j);
    out += '\n';
  }
}

// Deepest [/{ nesting of JSON text (outside strings); stops counting past `limit`.
int jsonTextDepth(std::string_view text, int limit) {
  int depth = 0, maxDepth = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '[' || c == '{') {
      if (++depth > maxDepth) maxDepth = depth;
      if (maxDepth > limit) return maxDepth;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return maxDepth;
}

// go-yaml's reader: the input must be UTF-8 (no surrogates, nothing past U+10FFFF, shortest form) made of
// printable characters (tab, LF, CR, #x20-#x7E, #x85, #xA0-#xD7FF, #xE000-#xFFFD, #x10000-#x10FFFF).
// yaml-cpp accepts any bytes, and invalid UTF-8 would then reach JSON strings, whose serialization throws.
// Returns go-yaml's message for the first offending character, or "".
std::string checkYamlCharacters(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const Utf8Sequence seq = decodeUtf8(text, i);
    if (seq.error != nullptr) return seq.error;
    const size_t width = seq.width;
    const char32_t value = seq.value;
    if ((width == 2 && value < 0x80) || (width == 3 && value < 0x800) || (width == 4 && value < 0x10000)) {
      return "invalid length of a UTF-8 sequence";
    }
    if ((value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF) return "invalid Unicode character";
    const bool printable = value == 0x09 || value == 0x0A || value == 0x0D ||
                           (value >= 0x20 && value <= 0x7E) || value == 0x85 ||
                           (value >= 0xA0 && value <= 0xD7FF) || (value >= 0xE000 && value <= 0xFFFD) ||
                           value >= 0x10000;
    if (!printable) return "control characters are not allowed";
    i += width;
  }
  return "";
}

// yaml-cpp 0.7 loops forever in LoadAll on a token that cannot start a node outside a flow collection
// (a ',' at block level: jbeder/yaml-cpp#1040, fixed upstream in 0.8.1 by #1319): every
// HandleNextDocument reports one more null document at the same position without consuming the token,
// and LoadAll allocates a node per round until memory runs out. This event-only pass (cheap: nothing is
// built) notices a document starting where the previous one started and reports what go-yaml does.
class StuckDocumentDetector : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (last_ && last_->pos >= mark.pos) {
      throw YAML::ParserException(mark, "did not find expected node content");
    }
    last_ = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
  }
  void OnMapEnd() override {}

 private:
  std::optional<YAML::Mark> last_;
};

}  // namespace

Result<std::vector<nlohmann::json>> yamlToJson(std::string_view text) {
  if (std::string problem = checkYamlCharacters(text); !problem.empty()) return Error("yaml: " + problem);
  try {
    {
      std::istringstream in{std::string(text)};
      YAML::Parser parser(in);
      StuckDocumentDetector detector;
      while (parser.HandleNextDocument(detector)) {
      }
    }
    std::vector<YAML::Node> docs = YAML::LoadAll(std::string(text));
    std::vector<Json> out;
    Converter conv(text.size() * 4 + 100000);
    for (const YAML::Node& d : docs) {
      if (d.IsNull() || !d.IsDefined()) continue;
      Json j;
      if (!conv.convert(d, j, 0)) return Error(conv.error());
      if (j.is_null()) continue;
      out.push_back(std::move(j));
    }
    return out;
  } catch (const YAML::Exception& e) {
    return Error(markPrefix(e.mark) + e.msg);
  } catch (const std::exception& e) {
    return Error(std::string("yaml: ") + e.what());
  }
}

std::string jsonToYaml(const nlohmann::json& j) {
  std::string out;
  writeYaml(out, j, 0, false, 0);
  return out;
}

Result<std::vector<nlohmann::json>> parseJsonOrYaml(std::string_view text) {
  std::string jsonError;
  // Callers walk the result recursively; refuse absurd nesting up front (the YAML path limits it too).
  if (jsonTextDepth(text, kMaxDepth) > kMaxDepth) {
    return Error("invalid JSON: exceeded max depth of " + std::to_string(kMaxDepth));
  }
  try {
    Json j = Json::parse(text.begin(), text.end());
    std::vector<Json> out;
    if (!j.is_null()) out.push_back(std::move(j));
    return out;
  } catch (const std::exception& e) {
    std::string_view what = e.what();
    if (auto p = what.find("] "); p != std::string_view::npos && what.substr(0, 1) == "[")
      what.remove_prefix(p + 2);
    jsonError = "invalid JSON: " + std::string(what);
  }
  auto yaml = yamlToJson(text);
  if (yaml) return yaml;
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && (text[first] == '{' || text[first] == '[')) return Error(jsonError);
  return yaml.error();
}

}  // namespace ks::api
