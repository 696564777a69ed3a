#include "pkg/client/memory/selectors.h"

#include "pkg/api/labels.h"

namespace ks::client::memory {

namespace {

// Splits on `sep` not preceded by a backslash (fields.splitTerms).
std::vector<std::string> splitUnescaped(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  bool escaped = false;
  for (char c : s) {
    if (escaped) {
      cur += '\\';
      cur += c;
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == sep) {
      out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (escaped) cur += '\\';
  out.push_back(std::move(cur));
  return out;
}

// fields.UnescapeValue: \\ \, \= are the only escapes.
std::optional<std::string> unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      if (s[i] == ',' || s[i] == '=') return std::nullopt;
      out += s[i];
      continue;
    }
    if (i + 1 >= s.size()) return std::nullopt;
    char n = s[++i];
    if (n != '\\' && n != ',' && n != '=') return std::nullopt;
    out += n;
  }
  return out;
}

}  // namespace

ApiResult<std::vector<FieldRequirement>> parseFieldSelector(std::string_view selector) {
  std::vector<FieldRequirement> out;
  for (const std::string& term : splitUnescaped(selector, ',')) {
    if (term.empty()) continue;
    FieldRequirement r;
    size_t pos = std::string::npos;
    size_t opLen = 0;
    // Find the first unescaped operator; "!=" and "==" before "=".
    for (size_t i = 0; i < term.size() && pos == std::string::npos; ++i) {
      if (term[i] == '\\') {
        ++i;
        continue;
      }
      if (term.compare(i, 2, "!=") == 0) {
        pos = i, opLen = 2, r.equals = false;
      } else if (term.compare(i, 2, "==") == 0) {
        pos = i, opLen = 2;
      } else if (term[i] == '=') {
        pos = i, opLen = 1;
      }
    }
    auto value =
        pos == std::string::npos ? std::nullopt : unescape(std::string_view(term).substr(pos + opLen));
    if (pos == std::string::npos || pos == 0 || !value) {
      return ApiError(400, "BadRequest",
                      "invalid selector: '" + std::string(selector) + "'; can't understand '" + term + "'");
    }
    r.field = term.substr(0, pos);
    r.value = std::move(*value);
    out.push_back(std::move(r));
  }
  return out;
}

ApiResult<LabelMatcher> compileLabelSelector(std::string_view selector) {
  if (selector.find_first_not_of(" \t") == std::string_view::npos) return LabelMatcher();
  auto parsed = api::Selector::parse(selector);
  if (!parsed.ok()) return ApiError(400, "BadRequest", parsed.error().message());
  auto compiled = std::make_shared<const api::Selector>(std::move(parsed).value());
  return LabelMatcher([compiled](const api::Labels& labels) { return compiled->matches(labels); });
}

}  // namespace ks::client::memory
