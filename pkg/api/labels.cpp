// Ported from k8s.io/apimachinery/pkg/labels/selector.go, pkg/apis/meta/v1/helpers.go
// (LabelSelectorAsSelector) and pkg/util/validation (IsQualifiedName, IsValidLabelValue).

#include "pkg/api/labels.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>

#include "pkg/api/field.h"
#include "pkg/util/strings.h"

namespace ks::api {

namespace {

constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and "
    "end with an alphanumeric character";
constexpr std::string_view kDNS1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDNS1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and "
    "end with an alphanumeric character";
constexpr std::string_view kDNS1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDNS1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    "start and end with an alphanumeric character";
constexpr size_t kDNS1123LabelMaxLength = 63;
constexpr size_t kQualifiedNameMaxLength = 63;
constexpr size_t kLabelValueMaxLength = 63;
constexpr size_t kDNS1123SubdomainMaxLength = 253;

bool isAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool isLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$
bool matchesQualifiedName(std::string_view s) {
  if (s.empty() || !isAlnum(s.front()) || !isAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return isAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

// ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$
bool matchesDNS1123Subdomain(std::string_view s) {
  for (std::string_view label : split(s, '.')) {
    if (label.empty() || !isLowerAlnum(label.front()) || !isLowerAlnum(label.back())) return false;
    for (char c : label) {
      if (!isLowerAlnum(c) && c != '-') return false;
    }
  }
  return true;
}

// validation.RegexError.
std::string regexError(std::string_view msg, std::string_view fmt,
                       std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  if (examples.size() == 0) {
    out += " (regex used for validation is '";
  } else {
    out += " (e.g. ";
    bool first = true;
    for (std::string_view e : examples) {
      if (!first) out += " or ";
      first = false;
      out += "'";
      out += e;
      out += "', ";
    }
    out += "regex used for validation is '";
  }
  out += fmt;
  out += "')";
  return out;
}

std::string maxLenError(size_t n) {
  return "must be no more than " + std::to_string(n) + " characters";
}

std::string joinMsgs(const std::vector<std::string>& msgs) {
  return join(msgs, "; ");
}

}  // namespace

std::string_view selectionOpName(SelectionOp op) {
  switch (op) {
    case SelectionOp::In:
      return "in";
    case SelectionOp::NotIn:
      return "notin";
    case SelectionOp::Equals:
      return "=";
    case SelectionOp::DoubleEquals:
      return "==";
    case SelectionOp::NotEquals:
      return "!=";
    case SelectionOp::Exists:
      return "exists";
    case SelectionOp::DoesNotExist:
      return "!";
    case SelectionOp::GreaterThan:
      return "gt";
    case SelectionOp::LessThan:
      return "lt";
  }
  return "";
}

std::vector<std::string> isDNS1123Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDNS1123LabelMaxLength) errs.push_back(maxLenError(kDNS1123LabelMaxLength));
  // A label is a subdomain without dots.
  if (!matchesDNS1123Subdomain(value)) {
    errs.push_back(regexError(kDNS1123LabelErrMsg, kDNS1123LabelFmt, {"my-name", "123-abc"}));
  } else if (value.find('.') != std::string_view::npos) {
    errs.push_back("must not contain dots");
  }
  return errs;
}

std::vector<std::string> isDNS1123Subdomain(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDNS1123SubdomainMaxLength) errs.push_back(maxLenError(kDNS1123SubdomainMaxLength));
  if (!matchesDNS1123Subdomain(value)) {
    errs.push_back(regexError(kDNS1123SubdomainErrMsg, kDNS1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

std::vector<std::string> isQualifiedName(std::string_view value) {
  std::vector<std::string> errs;
  std::vector<std::string_view> parts = split(value, '/');
  std::string_view name;
  if (parts.size() == 1) {
    name = parts[0];
  } else if (parts.size() == 2) {
    std::string_view prefix = parts[0];
    name = parts[1];
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (const std::string& m : isDNS1123Subdomain(prefix)) errs.push_back("prefix part " + m);
    }
  } else {
    errs.push_back("a qualified name " +
                   regexError(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}) +
                   " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    return errs;
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > kQualifiedNameMaxLength) {
    errs.push_back("name part " + maxLenError(kQualifiedNameMaxLength));
  }
  if (!matchesQualifiedName(name)) {
    errs.push_back("name part " +
                   regexError(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> isValidLabelValue(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kLabelValueMaxLength) errs.push_back(maxLenError(kLabelValueMaxLength));
  if (!value.empty() && !matchesQualifiedName(value)) {
    errs.push_back(regexError(kLabelValueErrMsg, std::string("(") + std::string(kQualifiedNameFmt) + ")?",
                              {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Field error helpers

namespace internal {

bool parseGoInt64(std::string_view s, int64_t* out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  uint64_t limit = negative ? static_cast<uint64_t>(INT64_MAX) + 1 : static_cast<uint64_t>(INT64_MAX);
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (limit - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return true;
}

std::string childPath(std::string_view path, std::string_view name) {
  return api::field::child(path, name);
}

std::string indexPath(std::string_view path, size_t i) {
  return api::field::index(path, i);
}

std::string goStringSlice(const std::vector<std::string>& values) {
  if (values.empty()) return "[]string(nil)";
  std::string out = "[]string{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += quote(values[i]);
  }
  out += '}';
  return out;
}

void FieldErrors::invalid(std::string_view field, std::string_view value, std::string_view detail) {
  messages_.push_back(
      api::field::invalid(std::string(field), std::string(value), std::string(detail)).message());
}

void FieldErrors::required(std::string_view field, std::string_view detail) {
  messages_.push_back(api::field::required(std::string(field), std::string(detail)).message());
}

void FieldErrors::notSupported(std::string_view field, std::string_view value,
                               const std::vector<std::string_view>& supported) {
  messages_.push_back(api::field::notSupported(std::string(field), std::string(value), supported).message());
}

std::string FieldErrors::aggregate() const {
  std::vector<std::string> unique;
  for (const auto& m : messages_) {
    if (std::find(unique.begin(), unique.end(), m) == unique.end()) unique.push_back(m);
  }
  if (unique.empty()) return "";
  if (unique.size() == 1) return unique[0];
  return "[" + join(unique, ", ") + "]";
}

}  // namespace internal

// ---------------------------------------------------------------------------------------------
// Requirement

Requirement::Requirement(std::string key, SelectionOp op, std::vector<std::string> values)
    : key_(std::move(key)), op_(op), values_(std::move(values)) {
  if ((op_ == SelectionOp::GreaterThan || op_ == SelectionOp::LessThan) && values_.size() == 1) {
    internal::parseGoInt64(values_[0], &intValue_);
  }
}

std::optional<Requirement> newRequirement(std::string key, SelectionOp op, std::vector<std::string> values,
                                          std::string_view path, internal::FieldErrors& out) {
  using internal::childPath;
  using internal::goStringSlice;
  using internal::indexPath;
  internal::FieldErrors errs;
  if (auto keyErrs = isQualifiedName(key); !keyErrs.empty()) {
    errs.invalid(childPath(path, "key"), quote(key), joinMsgs(keyErrs));
  }
  const std::string valuePath = childPath(path, "values");
  switch (op) {
    case SelectionOp::In:
    case SelectionOp::NotIn:
      if (values.empty()) {
        errs.invalid(valuePath, goStringSlice(values),
                     "for 'in', 'notin' operators, values set can't be empty");
      }
      break;
    case SelectionOp::Equals:
    case SelectionOp::DoubleEquals:
    case SelectionOp::NotEquals:
      if (values.size() != 1) {
        errs.invalid(valuePath, goStringSlice(values), "exact-match compatibility requires one single value");
      }
      break;
    case SelectionOp::Exists:
    case SelectionOp::DoesNotExist:
      if (!values.empty()) {
        errs.invalid(valuePath, goStringSlice(values),
                     "values set must be empty for exists and does not exist");
      }
      break;
    case SelectionOp::GreaterThan:
    case SelectionOp::LessThan: {
      if (values.size() != 1) {
        errs.invalid(valuePath, goStringSlice(values),
                     "for 'Gt', 'Lt' operators, exactly one value is required");
      }
      for (size_t i = 0; i < values.size(); ++i) {
        int64_t ignored = 0;
        if (!internal::parseGoInt64(values[i], &ignored)) {
          errs.invalid(indexPath(valuePath, i), quote(values[i]),
                       "for 'Gt', 'Lt' operators, the value must be an integer");
        }
      }
      break;
    }
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (auto valueErrs = isValidLabelValue(values[i]); !valueErrs.empty()) {
      errs.invalid(indexPath(valuePath, i) + "[" + key + "]", quote(values[i]), joinMsgs(valueErrs));
    }
  }
  if (!errs.empty()) {
    out.append(errs);
    return std::nullopt;
  }
  return Requirement(std::move(key), op, std::move(values));
}

Result<Requirement> Requirement::create(std::string key, SelectionOp op, std::vector<std::string> values) {
  internal::FieldErrors errs;
  auto r = newRequirement(std::move(key), op, std::move(values), "", errs);
  if (!r) return Error(errs.aggregate());
  return std::move(*r);
}

bool Requirement::hasValue(std::string_view v) const {
  return std::any_of(values_.begin(), values_.end(), [&](const std::string& s) { return s == v; });
}

bool Requirement::matches(const Labels& labels) const {
  switch (op_) {
    case SelectionOp::In:
    case SelectionOp::Equals:
    case SelectionOp::DoubleEquals: {
      auto it = labels.find(key_);
      return it != labels.end() && hasValue(it->second);
    }
    case SelectionOp::NotIn:
    case SelectionOp::NotEquals: {
      auto it = labels.find(key_);
      return it == labels.end() || !hasValue(it->second);
    }
    case SelectionOp::Exists:
      return labels.find(key_) != labels.end();
    case SelectionOp::DoesNotExist:
      return labels.find(key_) == labels.end();
    case SelectionOp::GreaterThan:
    case SelectionOp::LessThan: {
      auto it = labels.find(key_);
      if (it == labels.end()) return false;
      int64_t v = 0;
      if (!internal::parseGoInt64(it->second, &v)) return false;
      if (values_.size() != 1) return false;
      return op_ == SelectionOp::GreaterThan ? v > intValue_ : v < intValue_;
    }
  }
  return false;
}

std::string Requirement::toString() const {
  std::string out;
  if (op_ == SelectionOp::DoesNotExist) out += '!';
  out += key_;
  switch (op_) {
    case SelectionOp::Equals:
      out += '=';
      break;
    case SelectionOp::DoubleEquals:
      out += "==";
      break;
    case SelectionOp::NotEquals:
      out += "!=";
      break;
    case SelectionOp::In:
      out += " in ";
      break;
    case SelectionOp::NotIn:
      out += " notin ";
      break;
    case SelectionOp::GreaterThan:
      out += '>';
      break;
    case SelectionOp::LessThan:
      out += '<';
      break;
    case SelectionOp::Exists:
    case SelectionOp::DoesNotExist:
      return out;
  }
  bool set = op_ == SelectionOp::In || op_ == SelectionOp::NotIn;
  if (set) out += '(';
  if (values_.size() == 1) {
    out += values_[0];
  } else {
    std::vector<std::string> sorted = values_;
    std::sort(sorted.begin(), sorted.end());
    out += join(sorted, ",");
  }
  if (set) out += ')';
  return out;
}

// ---------------------------------------------------------------------------------------------
// Parser (labels.Parse)

namespace {

enum class Token : uint8_t {
  Error,
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
};

bool isWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool isSpecialSymbol(char c) {
  switch (c) {
    case '=':
    case '!':
    case '(':
    case ')':
    case ',':
    case '>':
    case '<':
      return true;
    default:
      return false;
  }
}

bool literalToken(std::string_view s, Token* out) {
  static constexpr std::pair<std::string_view, Token> kTable[] = {
      {")", Token::ClosedPar},     {",", Token::Comma},    {"!", Token::DoesNotExist},
      {"==", Token::DoubleEquals}, {"=", Token::Equals},   {">", Token::GreaterThan},
      {"in", Token::In},           {"<", Token::LessThan}, {"!=", Token::NotEquals},
      {"notin", Token::NotIn},     {"(", Token::OpenPar},
  };
  for (const auto& [lit, tok] : kTable) {
    if (lit == s) {
      *out = tok;
      return true;
    }
  }
  return false;
}

struct ScannedItem {
  Token tok;
  std::string literal;
};

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  ScannedItem lex() {
    while (pos_ < s_.size() && isWhitespace(s_[pos_])) ++pos_;
    if (pos_ >= s_.size()) return {Token::EndOfString, ""};
    if (isSpecialSymbol(s_[pos_])) return scanSpecialSymbol();
    return scanIDOrKeyword();
  }

 private:
  ScannedItem scanIDOrKeyword() {
    size_t start = pos_;
    while (pos_ < s_.size() && !isSpecialSymbol(s_[pos_]) && !isWhitespace(s_[pos_])) ++pos_;
    std::string lit(s_.substr(start, pos_ - start));
    Token tok = Token::Identifier;
    if (literalToken(lit, &tok)) return {tok, lit};
    return {Token::Identifier, lit};
  }

  ScannedItem scanSpecialSymbol() {
    std::string buffer;
    bool found = false;
    ScannedItem last{Token::Error, ""};
    while (pos_ < s_.size() && isSpecialSymbol(s_[pos_])) {
      buffer += s_[pos_];
      ++pos_;
      Token tok = Token::Error;
      if (literalToken(buffer, &tok)) {
        last = {tok, buffer};
        found = true;
      } else if (found) {
        --pos_;
        break;
      }
    }
    if (!found) return {Token::Error, "error expected: keyword found '" + buffer + "'"};
    return last;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

enum class Context : uint8_t { KeyAndOperator, Values };

class Parser {
 public:
  explicit Parser(std::string_view s) {
    Lexer l(s);
    for (;;) {
      ScannedItem item = l.lex();
      bool end = item.tok == Token::EndOfString;
      items_.push_back(std::move(item));
      if (end) break;
    }
  }

  Result<std::vector<Requirement>> parse() {
    std::vector<Requirement> requirements;
    for (;;) {
      const ScannedItem& la = lookahead(Context::Values);
      Token tok = tokenIn(la, Context::Values);
      switch (tok) {
        case Token::Identifier:
        case Token::DoesNotExist: {
          auto r = parseRequirement();
          if (!r.ok()) return Error("unable to parse requirement: " + r.error().message());
          requirements.push_back(std::move(r).value());
          const ScannedItem& next = consume();
          Token t = tokenIn(next, Context::Values);
          if (t == Token::EndOfString) return requirements;
          if (t == Token::Comma) {
            const ScannedItem& after = lookahead(Context::Values);
            Token t2 = tokenIn(after, Context::Values);
            if (t2 != Token::Identifier && t2 != Token::DoesNotExist) {
              return Error("found '" + after.literal + "', expected: identifier after ','");
            }
            break;
          }
          return Error("found '" + next.literal + "', expected: ',' or 'end of string'");
        }
        case Token::EndOfString:
          return requirements;
        default:
          return Error("found '" + la.literal + "', expected: !, identifier, or 'end of string'");
      }
    }
  }

 private:
  static Token tokenIn(const ScannedItem& item, Context ctx) {
    if (ctx == Context::Values && (item.tok == Token::In || item.tok == Token::NotIn))
      return Token::Identifier;
    return item.tok;
  }

  const ScannedItem& lookahead(Context) const { return items_[position_]; }

  const ScannedItem& consume() {
    // The scan always ends with EndOfString, which the grammar never consumes past.
    const ScannedItem& item = items_[position_];
    if (position_ + 1 < items_.size()) ++position_;
    return item;
  }

  Result<Requirement> parseRequirement() {
    // parseKeyAndInferOperator.
    std::optional<SelectionOp> op;
    const ScannedItem* item = &consume();
    Token tok = tokenIn(*item, Context::Values);
    if (tok == Token::DoesNotExist) {
      op = SelectionOp::DoesNotExist;
      item = &consume();
      tok = tokenIn(*item, Context::Values);
    }
    if (tok != Token::Identifier) return Error("found '" + item->literal + "', expected: identifier");
    std::string key = item->literal;
    if (auto errs = isQualifiedName(key); !errs.empty()) {
      internal::FieldErrors fe;
      fe.invalid("<nil>", quote(key), joinMsgs(errs));
      return Error(fe.aggregate());
    }
    Token next = tokenIn(lookahead(Context::Values), Context::Values);
    if ((next == Token::EndOfString || next == Token::Comma) && op != SelectionOp::DoesNotExist) {
      op = SelectionOp::Exists;
    }
    if (op == SelectionOp::Exists || op == SelectionOp::DoesNotExist)
      return Requirement::create(std::move(key), *op, {});

    // parseOperator.
    const ScannedItem& opItem = consume();
    SelectionOp parsed = SelectionOp::Exists;
    switch (tokenIn(opItem, Context::KeyAndOperator)) {
      case Token::In:
        parsed = SelectionOp::In;
        break;
      case Token::Equals:
        parsed = SelectionOp::Equals;
        break;
      case Token::DoubleEquals:
        parsed = SelectionOp::DoubleEquals;
        break;
      case Token::GreaterThan:
        parsed = SelectionOp::GreaterThan;
        break;
      case Token::LessThan:
        parsed = SelectionOp::LessThan;
        break;
      case Token::NotIn:
        parsed = SelectionOp::NotIn;
        break;
      case Token::NotEquals:
        parsed = SelectionOp::NotEquals;
        break;
      default:
        return Error("found '" + opItem.literal + "', expected: in, notin, =, ==, !=, gt, lt");
    }
    std::set<std::string> values;
    if (parsed == SelectionOp::In || parsed == SelectionOp::NotIn) {
      if (auto r = parseValues(&values); !r.ok()) return r.error();
    } else {
      if (auto r = parseExactValue(&values); !r.ok()) return r.error();
    }
    return Requirement::create(std::move(key), parsed,
                               std::vector<std::string>(values.begin(), values.end()));
  }

  VoidResult parseValues(std::set<std::string>* values) {
    const ScannedItem& open = consume();
    if (tokenIn(open, Context::Values) != Token::OpenPar)
      return Error("found '" + open.literal + "' expected: '('");
    const ScannedItem& la = lookahead(Context::Values);
    switch (tokenIn(la, Context::Values)) {
      case Token::Identifier:
      case Token::Comma: {
        std::string lit = la.literal;
        if (auto r = parseIdentifiersList(values); !r.ok()) return r;
        if (tokenIn(consume(), Context::Values) != Token::ClosedPar)
          return Error("found '" + lit + "', expected: ')'");
        return {};
      }
      case Token::ClosedPar:
        consume();
        values->insert("");
        return {};
      default:
        return Error("found '" + la.literal + "', expected: ',', ')' or identifier");
    }
  }

  VoidResult parseIdentifiersList(std::set<std::string>* values) {
    for (;;) {
      const ScannedItem& item = consume();
      switch (tokenIn(item, Context::Values)) {
        case Token::Identifier: {
          values->insert(item.literal);
          const ScannedItem& la = lookahead(Context::Values);
          switch (tokenIn(la, Context::Values)) {
            case Token::Comma:
              continue;
            case Token::ClosedPar:
              return {};
            default:
              return Error("found '" + la.literal + "', expected: ',' or ')'");
          }
        }
        case Token::Comma: {
          if (values->empty()) values->insert("");  // "(,"
          Token t2 = tokenIn(lookahead(Context::Values), Context::Values);
          if (t2 == Token::ClosedPar) {
            values->insert("");  // ",)"
            return {};
          }
          if (t2 == Token::Comma) values->insert("");  // ",,"
          break;
        }
        default:
          return Error("found '" + item.literal + "', expected: ',', or identifier");
      }
    }
  }

  VoidResult parseExactValue(std::set<std::string>* values) {
    Token t = tokenIn(lookahead(Context::Values), Context::Values);
    if (t == Token::EndOfString || t == Token::Comma) {
      values->insert("");
      return {};
    }
    const ScannedItem& item = consume();
    if (tokenIn(item, Context::Values) == Token::Identifier) {
      values->insert(item.literal);
      return {};
    }
    return Error("found '" + item.literal + "', expected: identifier");
  }

  std::vector<ScannedItem> items_;
  size_t position_ = 0;
};

void sortByKey(std::vector<Requirement>& reqs) {
  std::stable_sort(reqs.begin(), reqs.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key() < b.key(); });
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Selector

Selector Selector::nothing() {
  Selector s;
  s.nothing_ = true;
  return s;
}

Result<Selector> Selector::parse(std::string_view selector) {
  Parser p(selector);
  auto reqs = p.parse();
  if (!reqs.ok()) return reqs.error();
  Selector s;
  s.requirements_ = std::move(reqs).value();
  sortByKey(s.requirements_);
  return s;
}

Result<Selector> Selector::fromLabelSelector(const LabelSelector& selector) {
  if (selector.matchLabels.empty() && selector.matchExpressions.empty()) return everything();
  std::vector<Requirement> reqs;
  reqs.reserve(selector.matchLabels.size() + selector.matchExpressions.size());
  for (const auto& [k, v] : selector.matchLabels) {
    auto r = Requirement::create(k, SelectionOp::Equals, {v});
    if (!r.ok()) return r.error();
    reqs.push_back(std::move(r).value());
  }
  for (const auto& expr : selector.matchExpressions) {
    SelectionOp op;
    if (expr.op == "In") {
      op = SelectionOp::In;
    } else if (expr.op == "NotIn") {
      op = SelectionOp::NotIn;
    } else if (expr.op == "Exists") {
      op = SelectionOp::Exists;
    } else if (expr.op == "DoesNotExist") {
      op = SelectionOp::DoesNotExist;
    } else {
      return Error(quote(expr.op) + " is not a valid label selector operator");
    }
    auto r = Requirement::create(expr.key, op, expr.values);
    if (!r.ok()) return r.error();
    reqs.push_back(std::move(r).value());
  }
  return Selector().add(std::move(reqs));
}

Result<Selector> Selector::fromLabelSelector(const std::optional<LabelSelector>& selector) {
  if (!selector) return nothing();
  return fromLabelSelector(*selector);
}

Selector Selector::fromSet(const Labels& set) {
  Selector s;
  s.requirements_.reserve(set.size());
  for (const auto& [k, v] : set) s.requirements_.push_back(Requirement(k, SelectionOp::Equals, {v}));
  return s;  // std::map iterates in key order already
}

Selector Selector::add(std::vector<Requirement> requirements) const {
  if (nothing_) return *this;
  Selector s = *this;
  for (auto& r : requirements) s.requirements_.push_back(std::move(r));
  sortByKey(s.requirements_);
  return s;
}

bool Selector::matches(const Labels& labels) const {
  if (nothing_) return false;
  for (const auto& r : requirements_) {
    if (!r.matches(labels)) return false;
  }
  return true;
}

std::string Selector::toString() const {
  std::string out;
  for (size_t i = 0; i < requirements_.size(); ++i) {
    if (i > 0) out += ',';
    out += requirements_[i].toString();
  }
  return out;
}

std::optional<std::string_view> Selector::requiresExactMatch(std::string_view label) const {
  for (const auto& r : requirements_) {
    if (r.key() != label) continue;
    switch (r.op()) {
      case SelectionOp::Equals:
      case SelectionOp::DoubleEquals:
      case SelectionOp::In:
        if (r.values().size() == 1) return std::string_view(r.values()[0]);
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace ks::api
