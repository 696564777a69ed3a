#include "pkg/server/zpages.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <optional>
#include <random>
#include <regex>
#include <span>

#include "pkg/api/field.h"
#include "pkg/util/go_sort.h"

namespace ks::server {
namespace {

using Clock = std::chrono::system_clock;

constexpr std::string_view kGroup = "config.k8s.io";
constexpr std::string_view kWarningLine =
    "Warning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees "
    "and is for debugging purposes only.";

// ---- UTF-8 ----------------------------------------------------------------------------------------

// The rune at s[i] and its width; an invalid or truncated sequence is U+FFFD of width 1 (as Go's
// utf8.DecodeRuneInString).
std::pair<char32_t, size_t> decodeRune(std::string_view s, size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return {b0, 1};
  size_t n = 0;
  char32_t r = 0;
  char32_t min = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2, r = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3, r = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4, r = b0 & 0x07, min = 0x10000;
  } else {
    return {0xFFFD, 1};
  }
  if (i + n > s.size()) return {0xFFFD, 1};
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return {0xFFFD, 1};
    r = (r << 6) | (b & 0x3F);
  }
  if (r < min || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) return {0xFFFD, 1};
  return {r, n};
}

// What a string becomes after a JSON round trip: invalid bytes replaced by U+FFFD.
std::string validUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    auto [r, w] = decodeRune(s, i);
    if (r == 0xFFFD && w == 1) {
      out += "\xEF\xBF\xBD";  // U+FFFD
    } else {
      out.append(s.substr(i, w));
    }
    i += w;
  }
  return out;
}

// ---- the objects, and Go's encoding/json ------------------------------------------------------------

// A JSON value as the API types marshal: strings, integers, null, arrays and objects in field order.
struct Node {
  enum class Kind { String, Int, Null, Array, Object };
  // A field of an object. Not a std::pair: a pair of an incomplete Node is ill-formed (clang rejects it).
  struct Field;
  Kind kind = Kind::Null;
  std::string str;
  int64_t num = 0;
  std::vector<Node> items;
  std::vector<Field> fields;

  // Defined below, after Field: a Node's members need Field complete (clang instantiates them eagerly).
  static Node string(std::string s);
  static Node integer(int64_t v);
  static Node object();
  // A []string: null when nil (upstream's aggregatePaths returns nil for no paths).
  static Node strings(const std::vector<std::string>& v);
  Node& add(std::string key, Node value);
};

struct Node::Field {
  std::string first;
  Node second;
};

Node& Node::add(std::string key, Node value) {
  fields.push_back(Field{std::move(key), std::move(value)});
  return *this;
}

Node Node::string(std::string s) {
  Node n;
  n.kind = Kind::String;
  n.str = std::move(s);
  return n;
}

Node Node::integer(int64_t v) {
  Node n;
  n.kind = Kind::Int;
  n.num = v;
  return n;
}

Node Node::object() {
  Node n;
  n.kind = Kind::Object;
  return n;
}

Node Node::strings(const std::vector<std::string>& v) {
  Node n;
  if (v.empty()) return n;
  n.kind = Kind::Array;
  for (const auto& s : v) n.items.push_back(string(s));
  return n;
}

// json.Marshal (compact) or json.MarshalIndent(v, "", "  ").
void appendJson(std::string& out, const Node& n, bool indent, size_t depth) {
  auto newline = [&](size_t d) {
    if (!indent) return;
    out += '\n';
    out.append(2 * d, ' ');
  };
  switch (n.kind) {
    case Node::Kind::String:
      out += api::field::jsonValue(n.str);
      return;
    case Node::Kind::Int:
      out += std::to_string(n.num);
      return;
    case Node::Kind::Null:
      out += "null";
      return;
    case Node::Kind::Array:
      if (n.items.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      for (size_t i = 0; i < n.items.size(); ++i) {
        if (i > 0) out += ',';
        newline(depth + 1);
        appendJson(out, n.items[i], indent, depth + 1);
      }
      newline(depth);
      out += ']';
      return;
    case Node::Kind::Object:
      if (n.fields.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      for (size_t i = 0; i < n.fields.size(); ++i) {
        if (i > 0) out += ',';
        newline(depth + 1);
        out += api::field::jsonValue(n.fields[i].first);
        out += indent ? ": " : ":";
        appendJson(out, n.fields[i].second, indent, depth + 1);
      }
      newline(depth);
      out += '}';
      return;
  }
}

// ---- sigs.k8s.io/yaml (go-yaml v2's encoder and emitter) ---------------------------------------------

constexpr size_t kYamlBestWidth = 80;

// go-yaml v2 parseTimestamp's formats, by shape.
bool looksLikeYamlTimestamp(const std::string& s) {
  static const std::regex kTimestamp(
      R"(^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(([Tt][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2}))|( [0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\.[0-9]+)?))?$)");
  return std::regex_match(s, kTimestamp);
}

// strconv.ParseInt / ParseUint with base 0 (sign, 0x / 0o / 0b / leading-0 octal), 64 bits.
bool parsesAsGoInt(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  if (s.empty()) return false;
  int base = 10;
  if (s.size() >= 2 && s[0] == '0') {
    const char p = static_cast<char>(s[1] | 0x20);
    if (p == 'x')
      base = 16, s.remove_prefix(2);
    else if (p == 'o')
      base = 8, s.remove_prefix(2);
    else if (p == 'b')
      base = 2, s.remove_prefix(2);
    else
      base = 8, s.remove_prefix(1);
  }
  if (s.empty()) return false;
  // Digits only; the value may overflow int64 but still fit uint64 (ParseUint), which is only a sign issue.
  uint64_t v = 0;
  for (char c : s) {
    const int lower = c | 0x20;
    const int d = c >= '0' && c <= '9' ? c - '0' : lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : 99;
    if (d >= base) return false;
    if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) return false;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  return true;
}

// go-yaml v2 resolve("", s) != !!str, or isBase60Float(s): such strings are double-quoted.
bool yamlResolvesToNonString(const std::string& s) {
  static const std::set<std::string, std::less<>> kSpecial = {
      "y",    "Y",    "yes",  "Yes",   "YES",   "true",  "True",  "TRUE",  "on",    "On",
      "ON",   "n",    "N",    "no",    "No",    "NO",    "false", "False", "FALSE", "off",
      "Off",  "OFF",  "",     "~",     "null",  "Null",  "NULL",  ".nan",  ".NaN",  ".NAN",
      ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"};
  if (kSpecial.count(s) != 0) return true;
  const char c = s[0];
  // strconv.ParseFloat succeeds: the whole text read, no overflow (underflow to 0 is fine).
  auto parsesAsGoFloat = [](const std::string& text) {
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size() && !(errno == ERANGE && std::abs(d) == HUGE_VAL);
  };
  if (c == '.') {
    return s.size() > 1 && s.find_first_of("xXpPnNiI") == std::string::npos && parsesAsGoFloat(s);
  }
  if (!(c == '+' || c == '-' || (c >= '0' && c <= '9'))) return false;
  if (looksLikeYamlTimestamp(s)) return true;
  std::string plain;
  for (char ch : s) {
    if (ch != '_') plain += ch;
  }
  if (parsesAsGoInt(plain)) return true;
  static const std::regex kFloat(R"(^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$)");
  if (std::regex_match(plain, kFloat) && parsesAsGoFloat(plain)) return true;
  static const std::regex kBase60(R"(^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$)");
  return s.find(':') != std::string::npos && std::regex_match(s, kBase60);
}

bool isYamlBreak(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c == '\r' || c == '\n') return true;
  if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x85) return true;
  return c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
         (static_cast<unsigned char>(s[i + 2]) == 0xA8 || static_cast<unsigned char>(s[i + 2]) == 0xA9);
}

// go-yaml's is_printable.
bool isYamlPrintable(char32_t r) {
  return r == 0x0A || (r >= 0x20 && r <= 0x7E) || (r >= 0xA0 && r <= 0xD7FF) ||
         (r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF);
}

enum class YamlStyle { Plain, SingleQuoted, DoubleQuoted, Literal };

// yaml_emitter_analyze_scalar + select_scalar_style for a block-context scalar.
YamlStyle yamlStyle(const std::string& s, bool simpleKey) {
  // encoder.stringv: strings that would resolve to something else are double-quoted, strings with "\n" are
  // asked for as literal blocks.
  if (yamlResolvesToNonString(s)) return YamlStyle::DoubleQuoted;
  bool blockIndicators = false;
  bool special = false;
  bool leadingOrTrailing = false;
  bool trailingSpace = false;
  bool spaceBreak = false;
  bool previousSpace = false;
  bool lineBreaks = false;
  if (s.size() >= 3 && (s.rfind("---", 0) == 0 || s.rfind("...", 0) == 0)) blockIndicators = true;
  bool precededByWhitespace = true;
  for (size_t i = 0; i < s.size();) {
    auto [r, w] = decodeRune(s, i);
    const bool followedByWhitespace = i + w >= s.size() || s[i + w] == ' ' || s[i + w] == '\t';
    const char c = s[i];
    if (i == 0) {
      switch (c) {
        case '#':
        case ',':
        case '[':
        case ']':
        case '{':
        case '}':
        case '&':
        case '*':
        case '!':
        case '|':
        case '>':
        case '\'':
        case '"':
        case '%':
        case '@':
        case '`':
          blockIndicators = true;
          break;
        case '?':
        case ':':
        case '-':
          if (followedByWhitespace) blockIndicators = true;
          break;
        default:
          break;
      }
    } else if ((c == ':' && followedByWhitespace) || (c == '#' && precededByWhitespace)) {
      blockIndicators = true;
    }
    if (!isYamlPrintable(r)) special = true;
    if (c == ' ' && (i == 0 || i + w == s.size())) leadingOrTrailing = true;
    if (c == ' ' && i + w == s.size()) trailingSpace = true;
    if (isYamlBreak(s, i)) {
      lineBreaks = true;
      if (previousSpace) spaceBreak = true;
    }
    previousSpace = c == ' ';
    precededByWhitespace = c == ' ' || c == '\t' || isYamlBreak(s, i);
    i += w;
  }
  if (s.find('\n') != std::string::npos) {
    // Literal when a block is allowed; only "\n" breaks are written that way here (other line breaks, rare
    // in flag values, stay double-quoted).
    const bool otherBreaks = s.find_first_of("\r") != std::string::npos || s.find("\xC2\x85") != std::string::npos ||
                             s.find("\xE2\x80\xA8") != std::string::npos || s.find("\xE2\x80\xA9") != std::string::npos;
    const bool blockAllowed = !trailingSpace && !spaceBreak && !special && !otherBreaks;
    return blockAllowed && !simpleKey ? YamlStyle::Literal : YamlStyle::DoubleQuoted;
  }
  const bool plainAllowed = !(leadingOrTrailing || special || lineBreaks || blockIndicators);
  const bool singleAllowed = !special && !lineBreaks;
  YamlStyle style = YamlStyle::Plain;
  if (!plainAllowed) style = YamlStyle::SingleQuoted;
  if (s.empty() && simpleKey) style = YamlStyle::SingleQuoted;
  if (style == YamlStyle::SingleQuoted && !singleAllowed) style = YamlStyle::DoubleQuoted;
  return style;
}

// Writes `s` in `style` starting at `column`; with allowBreaks, a space past column 80 becomes a line break
// indented by `indent` (go-yaml's write_plain / single_quoted / double_quoted_scalar).
std::string yamlScalar(const std::string& s, YamlStyle style, size_t column, size_t indent,
                       bool allowBreaks) {
  std::string out;
  if (style == YamlStyle::Literal) {
    // write_literal_scalar: "|", the indentation hint when the text starts with a space or break, the
    // chomping hint ("-" without a final break, "+" when the last two characters are breaks), then each
    // line indented. Ends with a line break exactly when the text does.
    out = "|";
    if (s.front() == ' ' || s.front() == '\n') out += '2';
    if (s.back() != '\n') {
      out += '-';
    } else if (s.size() == 1 || s[s.size() - 2] == '\n') {
      out += '+';
    }
    out += '\n';
    bool breaks = true;
    for (char c : s) {
      if (c == '\n') {
        out += '\n';
        breaks = true;
        continue;
      }
      if (breaks) out.append(indent, ' ');
      breaks = false;
      out += c;
    }
    return out;
  }
  auto breakLine = [&] {
    out += '\n';
    out.append(indent, ' ');
    column = indent;
  };
  bool spaces = false;
  if (style != YamlStyle::Plain) {
    out += style == YamlStyle::SingleQuoted ? '\'' : '"';
    ++column;
  }
  // go-yaml's is_bom(value, i) looks at the value's first bytes whatever i is: after a leading BOM, every
  // character is escaped.
  const bool leadingBom = s.rfind("\xEF\xBB\xBF", 0) == 0;
  for (size_t i = 0; i < s.size();) {
    auto [r, w] = decodeRune(s, i);
    const bool nextIsSpace = i + w < s.size() && s[i + w] == ' ';
    if (style == YamlStyle::DoubleQuoted &&
        (!isYamlPrintable(r) || leadingBom || isYamlBreak(s, i) || r == '"' || r == '\\')) {
      constexpr std::string_view kHex = "0123456789ABCDEF";
      std::string esc = "\\";
      switch (r) {
        case 0x00:
          esc += '0';
          break;
        case 0x07:
          esc += 'a';
          break;
        case 0x08:
          esc += 'b';
          break;
        case 0x09:
          esc += 't';
          break;
        case 0x0A:
          esc += 'n';
          break;
        case 0x0B:
          esc += 'v';
          break;
        case 0x0C:
          esc += 'f';
          break;
        case 0x0D:
          esc += 'r';
          break;
        case 0x1B:
          esc += 'e';
          break;
        case 0x22:
          esc += '"';
          break;
        case 0x5C:
          esc += '\\';
          break;
        case 0x85:
          esc += 'N';
          break;
        case 0x2028:
          esc += 'L';
          break;
        case 0x2029:
          esc += 'P';
          break;
        default: {
          const int digits = r <= 0xFF ? 2 : r <= 0xFFFF ? 4 : 8;
          esc += digits == 2 ? 'x' : digits == 4 ? 'u' : 'U';
          for (int k = digits - 1; k >= 0; --k) esc += kHex[(r >> (4 * k)) & 0xF];
        }
      }
      out += esc;
      column += esc.size();
      spaces = false;
    } else if (r == ' ') {
      bool fold = allowBreaks && !spaces && column > kYamlBestWidth;
      if (style == YamlStyle::Plain) fold = fold && !nextIsSpace;
      if (style == YamlStyle::SingleQuoted) fold = fold && i > 0 && i + 1 < s.size() && !nextIsSpace;
      if (style == YamlStyle::DoubleQuoted) fold = fold && i != 0 && i + 1 != s.size();
      if (fold) {
        breakLine();
        if (style == YamlStyle::DoubleQuoted && nextIsSpace) {
          out += '\\';
          ++column;
        }
      } else {
        out += ' ';
        ++column;
      }
      spaces = true;
    } else {
      if (style == YamlStyle::SingleQuoted && r == '\'') {
        out += '\'';
        ++column;
      }
      out.append(s.substr(i, w));
      ++column;
      spaces = false;
    }
    i += w;
  }
  if (style != YamlStyle::Plain) out += style == YamlStyle::SingleQuoted ? '\'' : '"';
  return out;
}

// go-yaml v2's keyList.Less for string keys: letters after other characters, digit runs by value.
bool yamlKeyLess(const std::string& a, const std::string& b) {
  auto isLetter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  auto isDigit = [](char c) { return c >= '0' && c <= '9'; };
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] == b[i]) continue;
    const bool al = isLetter(a[i]);
    const bool bl = isLetter(b[i]);
    if (al && bl) return a[i] < b[i];
    if (al || bl) return bl;
    int64_t an = 0;
    int64_t bn = 0;
    if (a[i] == '0' || b[i] == '0') {
      for (size_t j = i; j-- > 0 && isDigit(a[j]);) {
        if (a[j] != '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    size_t ai = i;
    size_t bi = i;
    for (; ai < a.size() && isDigit(a[ai]); ++ai) an = an * 10 + (a[ai] - '0');
    for (; bi < b.size() && isDigit(b[bi]); ++bi) bn = bn * 10 + (b[bi] - '0');
    if (an != bn) return an < bn;
    if (ai != bi) return ai < bi;
    return a[i] < b[i];
  }
  return a.size() < b.size();
}

std::string yamlInline(const Node& n, size_t column, size_t indent) {
  switch (n.kind) {
    case Node::Kind::String: {
      const std::string s = validUtf8(n.str);
      return yamlScalar(s, yamlStyle(s, false), column, indent, true);
    }
    case Node::Kind::Int:
      return std::to_string(n.num);
    case Node::Kind::Null:
      return "null";
    case Node::Kind::Array:
      return "[]";
    case Node::Kind::Object:
      return "{}";
  }
  return "";
}

// `text` and a line break, unless it ends with one (a literal block that keeps its final break).
void appendLine(std::string& out, const std::string& text) {
  out += text;
  if (text.empty() || text.back() != '\n') out += '\n';
}

// A block mapping at `indent` (sigs.k8s.io/yaml: JSON -> map -> yaml.Marshal, so keys are sorted).
void appendYamlMapping(std::string& out, const Node& obj, size_t indent) {
  std::vector<const Node::Field*> fields;
  for (const auto& f : obj.fields) fields.push_back(&f);
  std::stable_sort(fields.begin(), fields.end(),
                   [](const auto* a, const auto* b) { return yamlKeyLess(a->first, b->first); });
  for (const auto* f : fields) {
    const std::string key = validUtf8(f->first);
    out.append(indent, ' ');
    const std::string keyText = yamlScalar(key, yamlStyle(key, true), indent, indent, false);
    out += keyText;
    out += ':';
    const Node& v = f->second;
    if (v.kind == Node::Kind::Object && !v.fields.empty()) {
      out += '\n';
      appendYamlMapping(out, v, indent + 2);
    } else if (v.kind == Node::Kind::Array && !v.items.empty()) {
      out += '\n';
      for (const auto& item : v.items) {
        out.append(indent, ' ');
        out += "- ";
        appendLine(out, yamlInline(item, indent + 2, indent + 2));
      }
    } else {
      out += ' ';
      appendLine(out, yamlInline(v, indent + keyText.size() + 2, indent + 2));
    }
  }
}

// ---- content negotiation (apiserver's negotiation package) ------------------------------------------

struct SerializerInfo {
  std::string_view mediaType;
  std::string_view type;
  std::string_view subType;
  bool streams = false;
};
// The codec factory's media types after the zpages' filter, in order (protobuf dropped); CBOR, the last, only
// with CBORServingAndStorage.
constexpr SerializerInfo kSerializers[] = {
    {"application/json", "application", "json", true},
    {"application/yaml", "application", "yaml", false},
    {"text/plain", "text", "plain", false},
    {"application/cbor", "application", "cbor", true},
};

std::span<const SerializerInfo> offered(const ZpageOptions& options) {
  return std::span<const SerializerInfo>(kSerializers).first(options.cbor ? 4 : 3);
}

struct Gvk {
  std::string group;
  std::string version;
  std::string kind;
};

struct MediaTypeOptions {
  bool pretty = false;
  std::optional<Gvk> convert;
  const SerializerInfo* accepted = nullptr;
};

// negotiate.FlagzEndpointRestrictions / StatuszEndpointRestrictions (kind set), or apiserver's
// DefaultEndpointRestrictions (kind empty), which ErrorNegotiated uses.
struct Restrictions {
  std::string_view kind;

  bool allowsTransform(const SerializerInfo& s, const std::optional<Gvk>& gvk) const {
    if (kind.empty() || (s.type == "text" && s.subType == "plain")) return !gvk;
    return gvk && gvk->group == kGroup && (gvk->version == "v1alpha1" || gvk->version == "v1beta1") &&
           gvk->kind == kind;
  }
  bool allowsStream(std::string_view schema) const { return kind.empty() && schema == "watch"; }
};

std::optional<MediaTypeOptions> acceptMediaTypeOptions(const std::map<std::string, std::string>& params,
                                                       const SerializerInfo& accepts, const Restrictions& r) {
  MediaTypeOptions options;
  for (const auto& [k, v] : params) {
    if (k == "as" || k == "g" || k == "v") {
      if (!options.convert) options.convert.emplace();
      (k == "as" ? options.convert->kind : k == "g" ? options.convert->group : options.convert->version) = v;
    } else if (k == "stream") {
      if (!v.empty() && (!accepts.streams || !r.allowsStream(v))) return std::nullopt;
    } else if (k == "sv") {
      if (!v.empty()) return std::nullopt;  // AllowsServerVersion is false for both
    } else if (k == "pretty") {
      options.pretty = v == "1";
    }
  }
  if (!r.allowsTransform(accepts, options.convert)) return std::nullopt;
  options.accepted = &accepts;
  return options;
}

std::optional<MediaTypeOptions> negotiate(std::string_view header,
                                          std::span<const SerializerInfo> serializers,
                                          const Restrictions& r) {
  if (header.empty()) {
    MediaTypeOptions options;
    options.accepted = &serializers[0];
    return options;
  }
  for (const auto& clause : parseAccept(header)) {
    for (const auto& accepts : serializers) {
      if ((clause.type == accepts.type && (clause.subType == accepts.subType || clause.subType == "*")) ||
          (clause.type == "*" && clause.subType == "*")) {
        if (auto options = acceptMediaTypeOptions(clause.params, accepts, r)) return options;
      }
    }
  }
  return std::nullopt;
}

std::string firstHeader(const Request& req, std::string_view name) {
  for (const auto& [k, v] : req.headers) {
    if (k == name) return v;
  }
  return "";
}

// negotiation.isPrettyPrint: ?pretty=<bool>, else a curl / Wget / browser User-Agent.
bool isPrettyPrint(const Request& req) {
  if (req.rawQuery.find("pretty") != std::string::npos) {
    auto values = req.queryValues("pretty");
    if (!values.empty() && !values.front().empty()) {
      const std::string& p = values.front();
      return p == "1" || p == "t" || p == "T" || p == "true" || p == "TRUE" || p == "True";
    }
  }
  const std::string ua = firstHeader(req, "user-agent");
  return ua.rfind("curl", 0) == 0 || ua.rfind("Wget", 0) == 0 || ua.rfind("Mozilla/5.0", 0) == 0;
}

// k8s.io/apimachinery's CBOR: the self-described tag, strings (and field names) as byte strings, nil slices
// as null. (Upstream's nondeterministic mode starts structs and maps at a random field; this is the
// unrotated order, one of the orders upstream writes.)
void appendCborHead(std::string& out, unsigned major, uint64_t n) {
  const auto m = static_cast<unsigned char>(major << 5);
  int bytes = 0;
  if (n < 24) {
    out += static_cast<char>(m | n);
    return;
  }
  if (n <= 0xFF) {
    out += static_cast<char>(m | 24), bytes = 1;
  } else if (n <= 0xFFFF) {
    out += static_cast<char>(m | 25), bytes = 2;
  } else if (n <= 0xFFFFFFFF) {
    out += static_cast<char>(m | 26), bytes = 4;
  } else {
    out += static_cast<char>(m | 27), bytes = 8;
  }
  for (int i = bytes - 1; i >= 0; --i) out += static_cast<char>((n >> (8 * i)) & 0xFF);
}

void appendCbor(std::string& out, const Node& n) {
  switch (n.kind) {
    case Node::Kind::String:
      appendCborHead(out, 2, n.str.size());
      out += n.str;
      return;
    case Node::Kind::Int:
      if (n.num >= 0) {
        appendCborHead(out, 0, static_cast<uint64_t>(n.num));
      } else {
        appendCborHead(out, 1, static_cast<uint64_t>(-(n.num + 1)));
      }
      return;
    case Node::Kind::Null:
      out += '\xF6';
      return;
    case Node::Kind::Array:
      appendCborHead(out, 4, n.items.size());
      for (const auto& item : n.items) appendCbor(out, item);
      return;
    case Node::Kind::Object:
      appendCborHead(out, 5, n.fields.size());
      for (const auto& [k, v] : n.fields) {
        appendCborHead(out, 2, k.size());
        out += k;
        appendCbor(out, v);
      }
      return;
  }
}

std::string encode(const Node& obj, const SerializerInfo& s, bool pretty) {
  if (s.subType == "cbor") {
    std::string out = "\xD9\xD9\xF7";
    appendCbor(out, obj);
    return out;
  }
  if (s.subType == "yaml") {
    std::string out;
    appendYamlMapping(out, obj, 0);
    return out;
  }
  std::string out;
  appendJson(out, obj, pretty, 0);
  if (!pretty) out += '\n';  // json.Encoder.Encode
  return out;
}

// responsewriters.ErrorNegotiated for the 406: the Status in what the Accept header allows under the
// default restrictions, else WriteRawJSON's indented JSON.
Response notAcceptable(const ZpageOptions& options, const Request& req, std::string_view accept) {
  std::string accepted;
  for (const auto& s : offered(options))
    accepted += (accepted.empty() ? "" : ", ") + std::string(s.mediaType);
  Node status = Node::object();
  status.add("kind", Node::string("Status"))
      .add("apiVersion", Node::string("v1"))
      .add("metadata", Node::object())
      .add("status", Node::string("Failure"))
      .add("message", Node::string("only the following media types are accepted: " + accepted))
      .add("reason", Node::string("NotAcceptable"))
      .add("code", Node::integer(406));
  Response resp;
  resp.status = 406;
  auto m = negotiate(accept, offered(options), Restrictions{});
  if (!m || m->accepted->type == "text") {
    resp.contentType = "application/json";
    appendJson(resp.body, status, true, 0);
    return resp;
  }
  resp.contentType = std::string(m->accepted->mediaType);
  resp.body = encode(status, *m->accepted, m->pretty || isPrettyPrint(req));
  return resp;
}

std::string htmlEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '"':
        out += "&#34;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string_view delimiter(const ZpageOptions& options) {
  size_t i = 0;
  if (options.pickDelimiter) {
    i = options.pickDelimiter() % std::size(kZpageDelimiters);
  } else {
    thread_local std::mt19937 rng{std::random_device{}()};
    i = std::uniform_int_distribution<size_t>(0, std::size(kZpageDelimiters) - 1)(rng);
  }
  return kZpageDelimiters[i];
}

std::string textHeader(const ZpageOptions& options, std::string_view page) {
  return "\n" + options.componentName + " " + std::string(page) + "\n" + std::string(kWarningLine) + "\n";
}

Node typedObject(const ZpageOptions& options, std::string_view kind, std::string_view version) {
  Node obj = Node::object();
  obj.add("kind", Node::string(std::string(kind)))
      .add("apiVersion", Node::string(std::string(kGroup) + "/" + std::string(version)));
  Node meta = Node::object();
  if (!options.componentName.empty()) meta.add("name", Node::string(options.componentName));
  obj.add("metadata", std::move(meta));
  return obj;
}

// The shared request flow of upstream's handleFlagz / handleStatusz: blank Accept -> text; negotiation
// failure -> 406; JSON/YAML -> the object for the negotiated version (Warning when deprecated); text.
Response serveZpage(const ZpageOptions& options, std::string_view kind, std::string_view page,
                    const Request& req, const std::function<std::string()>& text,
                    const std::function<Node(std::string_view version)>& object) {
  const std::string accept = firstHeader(req, "accept");
  auto plain = [&] {
    Response resp;
    resp.contentType = "text/plain; charset=utf-8";
    resp.body = text();
    return resp;
  };
  if (accept.find_first_not_of(" \t\r\n\v\f") == std::string::npos) return plain();
  auto m = negotiate(accept, offered(options), Restrictions{kind});
  if (!m) return notAcceptable(options, req, accept);
  if (m->accepted->type == "text") return plain();
  const Gvk& gvk = *m->convert;  // allowsTransform requires it for JSON, YAML and CBOR
  Response resp;
  if (options.deprecatedVersions.count(gvk.version) != 0) {
    resp.headers.emplace_back("Warning", "299 - \"This version of the " + std::string(page) +
                                             " endpoint is deprecated. Please use a newer version.\"");
  }
  resp.contentType =
      std::string(m->accepted->mediaType) + ";g=" + gvk.group + ";v=" + gvk.version + ";as=" + gvk.kind;
  resp.body = encode(object(gvk.version), *m->accepted, m->pretty || isPrettyPrint(req));
  return resp;
}

std::string unixDate(Clock::time_point t) {
  const std::time_t tt = Clock::to_time_t(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  char buf[64];
  const size_t n = std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Z %Y", &tm);
  return std::string(buf, n);
}

std::string rfc3339(Clock::time_point t) {
  const std::time_t tt = Clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buf, n);
}

}  // namespace

std::vector<AcceptClause> parseAccept(std::string_view header) {
  // goautoneg.nextSplitElement: the text before the first `sep`, and the rest after it.
  auto next = [](std::string_view& rest, char sep) {
    const size_t p = rest.find(sep);
    std::string_view item = rest.substr(0, p);
    rest = p == std::string_view::npos ? std::string_view() : rest.substr(p + 1);
    return item;
  };
  auto trimSpaces = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return std::string(s);
  };
  std::vector<AcceptClause> clauses;
  std::string_view remaining = header;
  while (!remaining.empty()) {
    const std::string partText = trimSpaces(next(remaining, ','));
    std::string_view part = partText;
    AcceptClause a;
    std::string_view params = part;
    std::string_view mediaRange = next(params, ';');
    std::string_view sub = mediaRange;
    a.type = trimSpaces(next(sub, '/'));
    if (sub.empty()) {
      if (a.type != "*") continue;
      a.subType = "*";
    } else {
      std::string_view subType = next(sub, '/');
      if (!sub.empty()) continue;
      a.subType = trimSpaces(subType);
    }
    while (!params.empty()) {
      std::string_view param = next(params, ';');
      std::string_view value = param;
      std::string_view key = next(value, '=');
      if (value.empty()) continue;
      std::string_view v = next(value, '=');
      if (!value.empty()) continue;
      const std::string token = trimSpaces(key);
      if (token == "q") {
        // strconv.ParseFloat(v, 32); the value is kept even on error (0, or ±Inf when out of range).
        const std::string text(v);
        char* end = nullptr;
        errno = 0;
        const float f = text.empty() || text.front() == ' ' ? 0.0f : std::strtof(text.c_str(), &end);
        a.q = end == text.c_str() + text.size() ? static_cast<double>(f) : 0.0;
      } else {
        a.params[token] = trimSpaces(v);
      }
    }
    clauses.push_back(std::move(a));
  }
  goSortSlice(clauses, [](const AcceptClause& ai, const AcceptClause& aj) {
    if (ai.q > aj.q) return true;
    if (ai.type != "*" && aj.type == "*") return true;
    return ai.subType != "*" && aj.subType == "*";
  });
  return clauses;
}

std::vector<std::string> aggregatePaths(const std::vector<std::string>& listedPaths) {
  static const std::set<std::string, std::less<>> kNonDebugging = {"/apis", "/api", "/openid", "/openapi",
                                                                   "/.well-known"};
  std::set<std::string> folders;
  for (const auto& p : listedPaths) {
    // strings.Split(p, "/")[1]
    const size_t first = p.find('/');
    if (first == std::string::npos) continue;
    const size_t second = p.find('/', first + 1);
    std::string folder =
        "/" + p.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
    if (folder == "/") continue;
    if (kNonDebugging.count(folder) == 0) folders.insert(std::move(folder));
  }
  return {folders.begin(), folders.end()};
}

std::string uptimeText(std::chrono::seconds up) {
  const int64_t s = up.count();
  char buf[64];
  std::snprintf(buf, sizeof buf, "%lld hr %02lld min %02lld sec", static_cast<long long>(s / 3600),
                static_cast<long long>((s / 60) % 60), static_cast<long long>(s % 60));
  return buf;
}

std::string yamlScalarForTest(std::string_view s, size_t column, size_t indent) {
  const std::string v = validUtf8(s);
  return yamlScalar(v, yamlStyle(v, false), column, indent, true);
}

Handler flagzHandler(ZpageOptions options, FlagReader reader) {
  struct State {
    ZpageOptions options;
    FlagReader reader;
    std::mutex mu;
    std::optional<std::string> cachedText;  // upstream caches the first text answer, separator included
  };
  auto state = std::make_shared<State>();
  state->options = std::move(options);
  state->reader = std::move(reader);
  return [state](const Request& req) {
    auto text = [&state] {
      std::lock_guard lock(state->mu);
      if (!state->cachedText) {
        std::string out = textHeader(state->options, "flagz");
        const std::string_view sep = delimiter(state->options);
        for (const auto& [name, value] : state->reader()) out += name + std::string(sep) + value + "\n";
        state->cachedText = std::move(out);
      }
      return *state->cachedText;
    };
    auto object = [&state](std::string_view version) {
      Node obj = typedObject(state->options, "Flagz", version);
      Node flags = Node::object();
      for (const auto& [name, value] : state->reader()) flags.add(name, Node::string(value));
      if (!flags.fields.empty()) obj.add("flags", std::move(flags));  // omitempty
      return obj;
    };
    return serveZpage(state->options, "Flagz", "flagz", req, text, object);
  };
}

Handler statuszHandler(ZpageOptions options, StatuszInfo info) {
  if (!info.now) info.now = [] { return Clock::now(); };
  info.startTime = std::chrono::floor<std::chrono::seconds>(info.startTime);
  info.listedPaths = aggregatePaths(info.listedPaths);
  return [options = std::move(options), info = std::move(info)](const Request& req) {
    const auto up = std::chrono::duration_cast<std::chrono::seconds>(info.now() - info.startTime);
    auto text = [&] {
      const std::string d = htmlEscape(delimiter(options));
      std::string paths;
      for (const auto& p : info.listedPaths) paths += (paths.empty() ? "" : " ") + p;
      std::string out = textHeader(options, "statusz");
      out += "\nStarted" + d + " " + htmlEscape(unixDate(info.startTime));
      out += "\nUp" + d + " " + htmlEscape(uptimeText(up));
      out += "\nGo version" + d + " " + htmlEscape(info.goVersion);
      out += "\nBinary version" + d + " " + htmlEscape(info.binaryVersion) + "\n";
      if (!info.emulationVersion.empty())
        out += "Emulation version" + d + " " + htmlEscape(info.emulationVersion);
      out += "\n";
      if (!paths.empty()) out += "Paths" + d + " " + htmlEscape(paths);
      out += "\n";
      return out;
    };
    auto object = [&](std::string_view version) {
      Node obj = typedObject(options, "Statusz", version);
      obj.add("startTime", Node::string(rfc3339(info.startTime)))
          .add("uptimeSeconds", Node::integer(std::max<int64_t>(0, up.count())))
          .add("goVersion", Node::string(info.goVersion))
          .add("binaryVersion", Node::string(info.binaryVersion));
      if (!info.emulationVersion.empty()) obj.add("emulationVersion", Node::string(info.emulationVersion));
      obj.add("paths", Node::strings(info.listedPaths));
      return obj;
    };
    return serveZpage(options, "Statusz", "statusz", req, text, object);
  };
}

}  // namespace ks::server
