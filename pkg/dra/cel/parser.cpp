#include "pkg/dra/cel/parser.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <set>

namespace ks::cel {
namespace {

constexpr int kMaxRecursionDepth = 250;
constexpr const char* kAccumulator = "@result";

bool isLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isHex(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

const std::set<std::string, std::less<>>& reservedIds() {
  static const std::set<std::string, std::less<>> ids = {
      "as",  "break", "const",   "continue",  "else", "false",  "for",  "function", "if",   "import", "in",
      "let", "loop",  "package", "namespace", "null", "return", "true", "var",      "void", "while"};
  return ids;
}

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

enum class Tok : uint8_t {
  End,
  Int,
  Uint,
  Double,
  String,
  Bytes,
  Ident,
  EscIdent,
  True,
  False,
  Null,
  In,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  And,
  Or,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  LParen,
  RParen,
  Dot,
  Comma,
  Minus,
  Not,
  Question,
  Colon,
  Plus,
  Star,
  Slash,
  Percent,
  Invalid
};

struct Token {
  Tok kind = Tok::End;
  size_t begin = 0, end = 0;  // byte range in the source
};

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Token next() {
    skipSpaceAndComments();
    Token t;
    t.begin = pos_;
    if (pos_ >= s_.size()) return t;
    const char c = s_[pos_];
    auto one = [&](Tok k, size_t n = 1) {
      pos_ += n;
      t.kind = k;
      t.end = pos_;
      return t;
    };
    auto peek = [&](size_t k) { return pos_ + k < s_.size() ? s_[pos_ + k] : '\0'; };
    switch (c) {
      case '=':
        if (peek(1) == '=') return one(Tok::Eq, 2);
        return invalidPair(t);
      case '!':
        return peek(1) == '=' ? one(Tok::Ne, 2) : one(Tok::Not);
      case '<':
        return peek(1) == '=' ? one(Tok::Le, 2) : one(Tok::Lt);
      case '>':
        return peek(1) == '=' ? one(Tok::Ge, 2) : one(Tok::Gt);
      case '&':
        if (peek(1) == '&') return one(Tok::And, 2);
        return invalidPair(t);
      case '|':
        if (peek(1) == '|') return one(Tok::Or, 2);
        return invalidPair(t);
      case '[':
        return one(Tok::LBracket);
      case ']':
        return one(Tok::RBracket);
      case '{':
        return one(Tok::LBrace);
      case '}':
        return one(Tok::RBrace);
      case '(':
        return one(Tok::LParen);
      case ')':
        return one(Tok::RParen);
      case ',':
        return one(Tok::Comma);
      case '-':
        return one(Tok::Minus);
      case '?':
        return one(Tok::Question);
      case ':':
        return one(Tok::Colon);
      case '+':
        return one(Tok::Plus);
      case '*':
        return one(Tok::Star);
      case '/':
        return one(Tok::Slash);
      case '%':
        return one(Tok::Percent);
      case '.':
        if (isDigit(peek(1))) return number(t);
        return one(Tok::Dot);
      case '`': {
        size_t i = pos_ + 1;
        while (i < s_.size() && (isLetter(s_[i]) || isDigit(s_[i]) || s_[i] == '_' || s_[i] == '.' ||
                                 s_[i] == '-' || s_[i] == '/' || s_[i] == ' '))
          ++i;
        if (i < s_.size() && s_[i] == '`' && i > pos_ + 1) return one(Tok::EscIdent, i + 1 - pos_);
        return one(Tok::Invalid);
      }
      default:
        break;
    }
    if (isDigit(c)) return number(t);
    if (c == '"' || c == '\'') return string(t, pos_, Tok::String);
    if ((c == 'r' || c == 'R') && (peek(1) == '"' || peek(1) == '\''))
      return string(t, pos_ + 1, Tok::String);
    if ((c == 'b' || c == 'B') && (peek(1) == '"' || peek(1) == '\'')) return string(t, pos_ + 1, Tok::Bytes);
    if ((c == 'b' || c == 'B') && (peek(1) == 'r' || peek(1) == 'R') && (peek(2) == '"' || peek(2) == '\''))
      return string(t, pos_ + 2, Tok::Bytes);
    if ((c == 'r' || c == 'R') && (peek(1) == 'b' || peek(1) == 'B') && (peek(2) == '"' || peek(2) == '\''))
      return string(t, pos_ + 2, Tok::Bytes);
    if (isLetter(c) || c == '_') {
      size_t i = pos_;
      while (i < s_.size() && (isLetter(s_[i]) || isDigit(s_[i]) || s_[i] == '_')) ++i;
      const std::string_view word = s_.substr(pos_, i - pos_);
      Tok k = Tok::Ident;
      if (word == "true")
        k = Tok::True;
      else if (word == "false")
        k = Tok::False;
      else if (word == "null")
        k = Tok::Null;
      else if (word == "in")
        k = Tok::In;
      return one(k, i - pos_);
    }
    // One code point that starts no token.
    size_t n = 1;
    while (pos_ + n < s_.size() && (static_cast<unsigned char>(s_[pos_ + n]) & 0xC0) == 0x80) ++n;
    return one(Tok::Invalid, n);
  }

 private:
  // The first character of a two-character operator alone: ANTLR fails on the character after it and
  // reports both (just the one at EOF).
  Token invalidPair(Token t) {
    pos_ = std::min(pos_ + 1, s_.size());
    if (pos_ < s_.size()) {
      ++pos_;
      while (pos_ < s_.size() && (static_cast<unsigned char>(s_[pos_]) & 0xC0) == 0x80) ++pos_;
    }
    t.kind = Tok::Invalid;
    t.end = pos_;
    return t;
  }

  void skipSpaceAndComments() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '/') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  Token number(Token t) {
    size_t i = pos_;
    auto digits = [&] {
      const size_t from = i;
      while (i < s_.size() && isDigit(s_[i])) ++i;
      return i > from;
    };
    auto exponent = [&] {
      if (i < s_.size() && (s_[i] == 'e' || s_[i] == 'E')) {
        size_t j = i + 1;
        if (j < s_.size() && (s_[j] == '+' || s_[j] == '-')) ++j;
        if (j < s_.size() && isDigit(s_[j])) {
          i = j;
          digits();
          return true;
        }
      }
      return false;
    };
    if (s_[i] == '0' && i + 1 < s_.size() && (s_[i + 1] == 'x') && i + 2 < s_.size() && isHex(s_[i + 2])) {
      i += 2;
      while (i < s_.size() && isHex(s_[i])) ++i;
      t.kind = Tok::Int;
    } else if (s_[i] == '.') {
      ++i;
      digits();
      exponent();
      t.kind = Tok::Double;
    } else {
      digits();
      t.kind = Tok::Int;
      if (i + 1 < s_.size() && s_[i] == '.' && isDigit(s_[i + 1])) {
        ++i;
        digits();
        exponent();
        t.kind = Tok::Double;
      } else if (exponent()) {
        t.kind = Tok::Double;
      }
    }
    if (t.kind == Tok::Int && i < s_.size() && (s_[i] == 'u' || s_[i] == 'U')) {
      ++i;
      t.kind = Tok::Uint;
    }
    pos_ = i;
    t.end = i;
    return t;
  }

  // A quoted literal whose opening quote is at `quote`; the prefix (r, b, br) is between begin and quote.
  // Escapes follow CEL.g4's ESC_SEQ. When the literal does not lex, ANTLR falls back to the longest
  // token it had matched (the prefix as an IDENTIFIER) or, without one, reports the text from the
  // token's start through the character where lexing failed (to the end at EOF) and resumes after it.
  Token string(Token t, size_t quote, Tok kind) {
    const char q = s_[quote];
    const bool raw = std::any_of(s_.begin() + static_cast<std::ptrdiff_t>(t.begin),
                                 s_.begin() + static_cast<std::ptrdiff_t>(quote),
                                 [](char c) { return c == 'r' || c == 'R'; });
    const bool triple = quote + 2 < s_.size() && s_[quote + 1] == q && s_[quote + 2] == q;
    size_t i = quote + (triple ? 3 : 1);
    const auto fail = [&](size_t at) {
      if (quote > t.begin) {  // the prefix letters lex as an identifier
        pos_ = quote;
        t.kind = Tok::Ident;
        t.end = pos_;
        return t;
      }
      pos_ = at < s_.size() ? at + 1 : s_.size();
      while (pos_ < s_.size() && (static_cast<unsigned char>(s_[pos_]) & 0xC0) == 0x80) ++pos_;
      t.kind = Tok::Invalid;
      t.end = pos_;
      return t;
    };
    while (i < s_.size()) {
      const char c = s_[i];
      if (triple) {
        if (c == q && i + 2 < s_.size() && s_[i + 1] == q && s_[i + 2] == q) {
          pos_ = i + 3;
          t.kind = kind;
          t.end = pos_;
          return t;
        }
      } else {
        if (c == q) {
          pos_ = i + 1;
          t.kind = kind;
          t.end = pos_;
          return t;
        }
        if (c == '\n' || c == '\r') return fail(i);
      }
      if (c == '\\' && !raw) {
        const size_t e = i + 1;
        if (e >= s_.size()) return fail(e);
        const char x = s_[e];
        auto hexRun = [&](size_t from, size_t n) -> size_t {  // index of the first non-hex, or from+n
          for (size_t k = 0; k < n; ++k)
            if (from + k >= s_.size() || !isHex(s_[from + k])) return from + k;
          return from + n;
        };
        if (std::string_view("abfnrtv\"'\\?`").find(x) != std::string_view::npos) {
          i = e + 1;
        } else if (x == 'x' || x == 'X' || x == 'u' || x == 'U') {
          const size_t n = (x == 'u') ? 4 : (x == 'U' ? 8 : 2);
          const size_t end = hexRun(e + 1, n);
          if (end != e + 1 + n) return fail(end);
          i = end;
        } else if (x >= '0' && x <= '3') {
          if (e + 1 >= s_.size() || s_[e + 1] < '0' || s_[e + 1] > '7') return fail(e + 1);
          if (e + 2 >= s_.size() || s_[e + 2] < '0' || s_[e + 2] > '7') return fail(e + 2);
          i = e + 3;
        } else {
          return fail(e);
        }
        continue;
      }
      ++i;
    }
    return fail(s_.size());
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// cel-go's unescape: the literal text with its quotes (and r/b prefixes removed by the caller).
std::optional<std::string> unescape(std::string_view original, bool isBytes, std::string& error) {
  // All literals, raw ones too, normalize CR LF and lone CR to LF first (cel-go since v0.27).
  std::string normalized;
  normalized.reserve(original.size());
  for (size_t i = 0; i < original.size(); ++i) {
    if (original[i] != '\r') {
      normalized += original[i];
      continue;
    }
    normalized += '\n';
    if (i + 1 < original.size() && original[i + 1] == '\n') ++i;
  }
  std::string_view text = normalized;
  bool raw = false;
  if (!text.empty() && (text[0] == 'r' || text[0] == 'R')) {
    raw = true;
    text.remove_prefix(1);
  }
  const char q = text[0];
  const bool triple = text.size() >= 6 && text[1] == q && text[2] == q;
  const size_t quoteLen = triple ? 3 : 1;
  text = text.substr(quoteLen, text.size() - 2 * quoteLen);
  if (raw) return std::string(text);
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c != '\\') {
      out += c;
      ++i;
      continue;
    }
    if (i + 1 >= text.size()) {
      error = "unable to unescape string";
      return std::nullopt;
    }
    const char e = text[i + 1];
    i += 2;
    switch (e) {
      case 'a':
        out += '\a';
        continue;
      case 'b':
        out += '\b';
        continue;
      case 'f':
        out += '\f';
        continue;
      case 'n':
        out += '\n';
        continue;
      case 'r':
        out += '\r';
        continue;
      case 't':
        out += '\t';
        continue;
      case 'v':
        out += '\v';
        continue;
      case '\\':
        out += '\\';
        continue;
      case '\'':
        out += '\'';
        continue;
      case '"':
        out += '"';
        continue;
      case '`':
        out += '`';
        continue;
      case '?':
        out += '?';
        continue;
      default:
        break;
    }
    auto hexValue = [&](size_t n) -> std::optional<uint32_t> {
      if (i + n > text.size()) return std::nullopt;
      uint32_t v = 0;
      for (size_t k = 0; k < n; ++k) {
        const char h = text[i + k];
        if (!isHex(h)) return std::nullopt;
        v = v * 16 + static_cast<uint32_t>(isDigit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
      }
      i += n;
      return v;
    };
    std::optional<uint32_t> cp;
    bool byteValue = false;
    if (e == 'x' || e == 'X') {
      cp = hexValue(2);
      byteValue = true;
    } else if (e == 'u') {
      cp = hexValue(4);
    } else if (e == 'U') {
      cp = hexValue(8);
    } else if (e >= '0' && e <= '3') {
      if (i + 2 <= text.size() && text[i] >= '0' && text[i] <= '7' && text[i + 1] >= '0' &&
          text[i + 1] <= '7') {
        cp = static_cast<uint32_t>((e - '0') * 64 + (text[i] - '0') * 8 + (text[i + 1] - '0'));
        i += 2;
        byteValue = true;
      }
    }
    if (!cp || (!byteValue && isBytes && false)) {
      error = "unable to unescape string";
      return std::nullopt;
    }
    if ((e == 'u' || e == 'U') && isBytes) {
      error = "unable to unescape string";
      return std::nullopt;
    }
    if (*cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF)) {
      error = "invalid unicode code point";
      return std::nullopt;
    }
    if (byteValue && isBytes) {
      out += static_cast<char>(*cp);
    } else {
      appendUtf8(out, *cp);
    }
  }
  return out;
}

class Parser {
 public:
  Parser(std::string_view text, ParsedExpr& out, Issues& issues) : text_(text), out_(out), issues_(issues) {
    // Code-point offset of each byte, for error positions.
    cpOffset_.resize(text.size() + 1);
    int32_t cp = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      cpOffset_[i] = cp;
      if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++cp;
    }
    cpOffset_[text.size()] = cp;
    Lexer lexer(text);
    for (;;) {
      Token t = lexer.next();
      if (t.kind == Tok::Invalid) {
        // ANTLR's lexer reports the text it could not recognise and goes on after it.
        report(t.begin, "Syntax error: token recognition error at: '" + std::string(textOf(t)) + "'");
        continue;
      }
      tokens_.push_back(t);
      if (t.kind == Tok::End) break;
    }
  }

  ExprPtr parseAll() {
    ExprPtr e = expr();
    if (!failed_ && cur().kind != Tok::End) {
      if (peekKind(1) == Tok::End) {
        report(cur().begin,
               "Syntax error: extraneous input '" + std::string(textOf(cur())) + "' expecting <EOF>");
      } else {
        syntaxError(cur(), "<EOF>");
      }
    }
    return failed_ ? nullptr : std::move(e);
  }

 private:
  // Grammar rules --------------------------------------------------------------------------------------

  ExprPtr expr() {
    DepthGuard guard(*this);
    if (failed_) return nullptr;
    ExprPtr cond = conditionalOr();
    if (failed_ || cur().kind != Tok::Question) return cond;
    const Token q = take();
    ExprPtr a = conditionalOr();
    expect(Tok::Colon, "':'", /*exprFollows=*/true);
    ExprPtr b = expr();
    if (failed_) return nullptr;
    return call(q, op::kConditional, nullptr, vec(std::move(cond), std::move(a), std::move(b)));
  }

  ExprPtr conditionalOr() {
    ExprPtr e = conditionalAnd();
    while (!failed_ && cur().kind == Tok::Or) {
      const Token t = take();
      ExprPtr r = conditionalAnd();
      if (failed_) return nullptr;
      e = call(t, op::kLogicalOr, nullptr, vec(std::move(e), std::move(r)));
    }
    return e;
  }

  ExprPtr conditionalAnd() {
    ExprPtr e = relation();
    while (!failed_ && cur().kind == Tok::And) {
      const Token t = take();
      ExprPtr r = relation();
      if (failed_) return nullptr;
      e = call(t, op::kLogicalAnd, nullptr, vec(std::move(e), std::move(r)));
    }
    return e;
  }

  ExprPtr relation() {
    ExprPtr e = calc(0);
    for (;;) {
      if (failed_) return nullptr;
      const char* fn = nullptr;
      switch (cur().kind) {
        case Tok::Lt:
          fn = op::kLess;
          break;
        case Tok::Le:
          fn = op::kLessEquals;
          break;
        case Tok::Gt:
          fn = op::kGreater;
          break;
        case Tok::Ge:
          fn = op::kGreaterEquals;
          break;
        case Tok::Eq:
          fn = op::kEquals;
          break;
        case Tok::Ne:
          fn = op::kNotEquals;
          break;
        case Tok::In:
          fn = op::kIn;
          break;
        default:
          return e;
      }
      const Token t = take();
      ExprPtr r = calc(0);
      if (failed_) return nullptr;
      e = call(t, fn, nullptr, vec(std::move(e), std::move(r)));
    }
  }

  // level 0: + and -; level 1: *, / and %.
  ExprPtr calc(int level) {
    DepthGuard guard(*this);
    ExprPtr e = level == 0 ? calc(1) : unary();
    for (;;) {
      if (failed_) return nullptr;
      const char* fn = nullptr;
      const Tok k = cur().kind;
      if (level == 0 && k == Tok::Plus)
        fn = op::kAdd;
      else if (level == 0 && k == Tok::Minus)
        fn = op::kSubtract;
      else if (level == 1 && k == Tok::Star)
        fn = op::kMultiply;
      else if (level == 1 && k == Tok::Slash)
        fn = op::kDivide;
      else if (level == 1 && k == Tok::Percent)
        fn = op::kModulo;
      else
        return e;
      const Token t = take();
      ExprPtr r = level == 0 ? calc(1) : unary();
      if (failed_) return nullptr;
      e = call(t, fn, nullptr, vec(std::move(e), std::move(r)));
    }
  }

  ExprPtr unary() {
    DepthGuard guard(*this);
    if (cur().kind == Tok::Not) {
      const Token first = cur();
      int n = 0;
      while (cur().kind == Tok::Not) {
        take();
        ++n;
      }
      ExprPtr m = member();
      if (failed_ || n % 2 == 0) return m;
      return call(first, op::kLogicalNot, nullptr, vec(std::move(m)));
    }
    if (cur().kind == Tok::Minus) {
      // A single minus right before a number is the literal's sign (ANTLR picks the `member` alternative
      // on that ambiguity); two or more are all negations, the greedy `'-'+` loop taking them all.
      size_t n = 0;
      while (peekKind(n) == Tok::Minus) ++n;
      const Tok after = peekKind(n);
      if (n == 1 && (after == Tok::Int || after == Tok::Double)) {
        const Token first = cur();
        for (size_t k = 0; k + 1 < n; ++k) take();
        ExprPtr m = member();
        if (failed_ || (n - 1) % 2 == 0) return m;
        return call(first, op::kNegate, nullptr, vec(std::move(m)));
      }
      const Token first = cur();
      for (size_t k = 0; k < n; ++k) take();
      ExprPtr m = member();
      if (failed_ || n % 2 == 0) return m;
      return call(first, op::kNegate, nullptr, vec(std::move(m)));
    }
    return member();
  }

  ExprPtr member() {
    ExprPtr e = primary();
    for (;;) {
      if (failed_) return nullptr;
      if (cur().kind == Tok::Dot) {
        const Token dot = take();
        bool optional = false;
        if (cur().kind == Tok::Question) {
          take();
          optional = true;
        }
        if (cur().kind == Tok::Ident && peekKind(1) == Tok::LParen && !optional) {
          const Token id = take();
          const Token open = take();  // cel-go places a call (and its macro expansion) at the '('
          std::vector<ExprPtr> args = exprList(Tok::RParen);
          expect(Tok::RParen, "')'");
          if (failed_) return nullptr;
          e = memberCall(open, std::string(textOf(id)), std::move(e), std::move(args));
          continue;
        }
        std::string field;
        if (cur().kind == Tok::Ident) {
          field = std::string(textOf(take()));
        } else if (cur().kind == Tok::EscIdent) {
          // A `quoted` field name (cel-go enables identifier escape syntax by default since v0.27).
          const std::string_view quoted = textOf(take());
          field = std::string(quoted.substr(1, quoted.size() - 2));
        } else if (optional) {
          syntaxError(cur(), "{IDENTIFIER, ESC_IDENTIFIER}");
          return nullptr;
        } else if (cur().kind == Tok::True || cur().kind == Tok::False || cur().kind == Tok::Null) {
          syntaxError(cur(), "IDENTIFIER");
          return nullptr;
        } else {
          // ANTLR's prediction after '.' finds no alternative: the text from the '.' through the token.
          const size_t end = cur().kind == Tok::End ? dot.end : cur().end;
          report(cur().begin, "Syntax error: no viable alternative at input '" +
                                  std::string(text_.substr(dot.begin, end - dot.begin)) + "'");
          failed_ = true;
          return nullptr;
        }
        if (optional) {
          ExprPtr name = constant(dot, Value::string(field));
          e = call(dot, op::kOptSelect, nullptr, vec(std::move(e), std::move(name)));
        } else {
          e = select(dot, std::move(e), std::move(field), false);
        }
        continue;
      }
      if (cur().kind == Tok::LBracket) {
        const Token open = take();
        bool optional = false;
        if (cur().kind == Tok::Question) {
          take();
          optional = true;
        }
        ExprPtr index = expr();
        expect(Tok::RBracket, "']'");
        if (failed_) return nullptr;
        e = call(open, optional ? op::kOptIndex : op::kIndex, nullptr, vec(std::move(e), std::move(index)));
        continue;
      }
      return e;
    }
  }

  ExprPtr primary() {
    DepthGuard guard(*this);
    if (failed_) return nullptr;
    const Token t = cur();
    switch (t.kind) {
      case Tok::Dot:
      case Tok::Ident: {
        const bool leadingDot = t.kind == Tok::Dot;
        if (leadingDot) take();
        if (cur().kind != Tok::Ident) {
          syntaxError(cur(), "IDENTIFIER");
          return nullptr;
        }
        const Token id = take();
        std::string name(textOf(id));
        if (cur().kind == Tok::LParen) {
          const Token open = take();  // cel-go places a call (and its macro expansion) at the '('
          std::vector<ExprPtr> args = exprList(Tok::RParen);
          expect(Tok::RParen, "')'");
          if (failed_) return nullptr;
          if (reservedIds().contains(name)) {
            report(id.begin, "reserved identifier: " + name);
            failed_ = true;
            return nullptr;
          }
          if (leadingDot) name.insert(0, ".");
          return globalCall(open, std::move(name), std::move(args));
        }
        if (cur().kind == Tok::LBrace ||
            (cur().kind == Tok::Dot && peekKind(1) == Tok::Ident && isMessageAhead())) {
          // Message construction (Foo{field: value, ...}): parsed, then left to the checker as a reference
          // to the type name at the '{' (DRA's environment declares no message types).
          std::string type = (leadingDot ? "." : "") + name;
          while (cur().kind == Tok::Dot) {
            take();
            type += "." + std::string(textOf(take()));
          }
          const Token brace = cur();
          expect(Tok::LBrace, "'{'");
          while (!failed_ && cur().kind != Tok::RBrace) {
            if (cur().kind == Tok::Question) take();
            if (cur().kind != Tok::Ident) {
              syntaxError(cur(), "{'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}");
              break;
            }
            take();
            expect(Tok::Colon, "':'", /*exprFollows=*/true);
            expr();
            if (failed_ || cur().kind != Tok::Comma) break;
            take();
          }
          expect(Tok::RBrace, "'}'");
          if (failed_) return nullptr;
          ExprPtr e = newExpr(brace, ExprKind::Ident);
          e->name = std::move(type);
          return e;
        }
        if (reservedIds().contains(name)) {
          report(id.begin, "reserved identifier: " + name);
          failed_ = true;
          return nullptr;
        }
        if (leadingDot) name.insert(0, ".");
        ExprPtr e = newExpr(id, ExprKind::Ident);
        e->name = std::move(name);
        return e;
      }
      case Tok::LParen: {
        take();
        ExprPtr e = expr();
        expect(Tok::RParen, "')'");
        return failed_ ? nullptr : std::move(e);
      }
      case Tok::LBracket: {
        take();
        ExprPtr list = newExpr(t, ExprKind::List);
        // '[' listInit? ','? ']'
        if (cur().kind == Tok::Comma && peekKind(1) == Tok::RBracket) take();
        while (!failed_ && cur().kind != Tok::RBracket) {
          if (cur().kind == Tok::Question) {
            take();
            list->optionalAt.push_back(list->args.size());
          }
          list->args.push_back(expr());
          if (failed_ || cur().kind != Tok::Comma) break;
          take();
          if (cur().kind != Tok::RBracket && cur().kind != Tok::Question && !startsExpression(cur().kind)) {
            syntaxError(cur(), "']'");
            break;
          }
        }
        closeAggregate(Tok::RBracket, "{']', ','}");
        return failed_ ? nullptr : std::move(list);
      }
      case Tok::LBrace: {
        take();
        ExprPtr map = newExpr(t, ExprKind::Map);
        if (cur().kind == Tok::Comma && peekKind(1) == Tok::RBrace) take();
        while (!failed_ && cur().kind != Tok::RBrace) {
          MapEntry entry;
          if (cur().kind == Tok::Question) {
            take();
            entry.optional = true;
          }
          entry.key = expr();
          expect(Tok::Colon, "':'", /*exprFollows=*/true);
          entry.value = expr();
          map->entries.push_back(std::move(entry));
          if (failed_ || cur().kind != Tok::Comma) break;
          take();
          if (cur().kind != Tok::RBrace && cur().kind != Tok::Question && !startsExpression(cur().kind)) {
            syntaxError(cur(), "'}'");
            break;
          }
        }
        closeAggregate(Tok::RBrace, "{'}', ','}");
        return failed_ ? nullptr : std::move(map);
      }
      default:
        return literal();
    }
  }

  ExprPtr literal() {
    const Token t = cur();
    std::string_view text = textOf(t);
    switch (t.kind) {
      case Tok::Minus:
      case Tok::Int:
      case Tok::Double: {
        bool negative = false;
        Token start = t;
        if (t.kind == Tok::Minus) {
          take();
          negative = true;
          if (cur().kind != Tok::Int && cur().kind != Tok::Double) {
            syntaxError(cur(), "number");
            return nullptr;
          }
        }
        const Token num = take();
        std::string digits = (negative ? "-" : "") + std::string(textOf(num));
        if (num.kind == Tok::Double) {
          errno = 0;
          char* end = nullptr;
          const double d = std::strtod(digits.c_str(), &end);
          if (errno == ERANGE && std::abs(d) > 1) {
            report(start.begin, "invalid double literal");
            failed_ = true;
            return nullptr;
          }
          return constant(start, Value::dbl(d));
        }
        int base = 10;
        std::string_view body = textOf(num);
        if (body.starts_with("0x")) {
          base = 16;
          body.remove_prefix(2);
        }
        std::string signedBody = (negative ? "-" : "") + std::string(body);
        int64_t v = 0;
        auto [p, ec] = std::from_chars(signedBody.data(), signedBody.data() + signedBody.size(), v, base);
        if (ec != std::errc() || p != signedBody.data() + signedBody.size()) {
          report(start.begin, "invalid int literal");
          failed_ = true;
          return nullptr;
        }
        return constant(start, Value::integer(v));
      }
      case Tok::Uint: {
        take();
        std::string_view body = text.substr(0, text.size() - 1);
        int base = 10;
        if (body.starts_with("0x")) {
          base = 16;
          body.remove_prefix(2);
        }
        uint64_t v = 0;
        auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), v, base);
        if (ec != std::errc() || p != body.data() + body.size()) {
          report(t.begin, "invalid uint literal");
          failed_ = true;
          return nullptr;
        }
        return constant(t, Value::uinteger(v));
      }
      case Tok::String:
      case Tok::Bytes: {
        take();
        std::string_view body = text;
        const bool isBytes = t.kind == Tok::Bytes;
        bool raw = false;
        while (!body.empty() && body[0] != '"' && body[0] != '\'') {
          if (body[0] == 'r' || body[0] == 'R') raw = true;
          body.remove_prefix(1);
        }
        std::string error;
        auto s = unescape(raw ? "r" + std::string(body) : std::string(body), isBytes, error);
        if (!s) {
          report(t.begin, error);
          failed_ = true;
          return nullptr;
        }
        return constant(t, isBytes ? Value::bytes(std::move(*s)) : Value::string(std::move(*s)));
      }
      case Tok::True:
        take();
        return constant(t, Value::boolean(true));
      case Tok::False:
        take();
        return constant(t, Value::boolean(false));
      case Tok::Null:
        take();
        return constant(t, Value());
      default: {
        const char* starts =
            "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
            "STRING, BYTES, IDENTIFIER}";
        if (t.kind != Tok::End && startsExpression(peekKind(1)) && !failed_) {
          // Single-token deletion: the token is extraneous, the expression starts after it.
          report(t.begin,
                 "Syntax error: extraneous input '" + std::string(textOf(t)) + "' expecting " + starts);
          take();
          return primary();
        }
        syntaxError(t, starts);
        return nullptr;
      }
    }
  }

  std::vector<ExprPtr> exprList(Tok close) {
    std::vector<ExprPtr> args;
    if (cur().kind == close) return args;
    if (close == Tok::RParen && !startsExpression(cur().kind)) {
      // '(' exprList? ')': the expected set includes ')'.
      const char* expecting =
          "{'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
          "STRING, "
          "BYTES, IDENTIFIER}";
      if (cur().kind != Tok::End && (startsExpression(peekKind(1)) || peekKind(1) == close)) {
        report(cur().begin,
               "Syntax error: extraneous input '" + std::string(textOf(cur())) + "' expecting " + expecting);
        take();
        if (cur().kind == close) return args;
      } else {
        syntaxError(cur(), expecting);
        return args;
      }
    }
    for (;;) {
      args.push_back(expr());
      if (failed_ || cur().kind != Tok::Comma) return args;
      take();
    }
  }

  // Macros --------------------------------------------------------------------------------------------

  ExprPtr globalCall(const Token& at, std::string name, std::vector<ExprPtr> args) {
    if (name == "has" && args.size() == 1) {
      if (args[0]->kind != ExprKind::Select) return macroError(*args[0], "invalid argument to has() macro");
      ExprPtr sel = std::move(args[0]);
      ExprPtr e = newExpr(at, ExprKind::Select);
      e->operand = std::move(sel->operand);
      e->name = std::move(sel->name);
      e->testOnly = true;
      return e;
    }
    return call(at, name.c_str(), nullptr, std::move(args));
  }

  ExprPtr memberCall(const Token& at, std::string name, ExprPtr target, std::vector<ExprPtr> args) {
    const size_t n = args.size();
    if (name == "bind" && n == 3 && target->kind == ExprKind::Ident && target->name == "cel") {
      if (args[0]->kind != ExprKind::Ident)
        return macroError(*args[0], "cel.bind() variable names must be simple identifiers");
      ExprPtr c = newExpr(at, ExprKind::Comprehension);
      c->iterRange = newExpr(at, ExprKind::List);
      c->iterVar = "#unused";
      c->accuVar = args[0]->name;
      c->accuInit = std::move(args[1]);
      c->loopCondition = constant(at, Value::boolean(false));
      c->loopStep = ident(at, c->accuVar);
      c->result = std::move(args[2]);
      return c;
    }
    if ((name == "all" || name == "exists" || name == "exists_one") && n == 2)
      return quantifier(at, name, std::move(target), std::move(args));
    if ((name == "all" || name == "exists" || name == "existsOne" || name == "exists_one") && n == 3)
      return quantifier(at, name, std::move(target), std::move(args));
    if (name == "map" && (n == 2 || n == 3)) return mapMacro(at, std::move(target), std::move(args));
    if (name == "filter" && n == 2) return filterMacro(at, std::move(target), std::move(args));
    if ((name == "transformList" || name == "transformMap" || name == "transformMapEntry") &&
        (n == 3 || n == 4)) {
      // cel-go ext TwoVarComprehensions: accumulate a list (accu + [t]) or a map (cel.@mapInsert(accu, k, t),
      // cel.@mapInsert(accu, t)); with a filter, the step only when it holds.
      if (!iterVars(args, 2, "argument must be a simple name")) return placeholder(*args[0]);
      ExprPtr c = newExpr(at, ExprKind::Comprehension);
      c->iterRange = std::move(target);
      c->iterVar = args[0]->name;
      c->iterVar2 = args[1]->name;
      c->accuVar = kAccumulator;
      c->loopCondition = constant(at, Value::boolean(true));
      ExprPtr transform = std::move(args.back());
      ExprPtr step;
      if (name == "transformList") {
        c->accuInit = newExpr(at, ExprKind::List);
        ExprPtr elem = newExpr(at, ExprKind::List);
        elem->args.push_back(std::move(transform));
        step = call(at, op::kAdd, nullptr, vec(accu(at), std::move(elem)));
      } else {
        c->accuInit = newExpr(at, ExprKind::Map);
        step = name == "transformMap"
                   ? call(at, "cel.@mapInsert", nullptr,
                          vec(accu(at), ident(at, c->iterVar), std::move(transform)))
                   : call(at, "cel.@mapInsert", nullptr, vec(accu(at), std::move(transform)));
      }
      if (n == 4)
        step = call(at, op::kConditional, nullptr, vec(std::move(args[2]), std::move(step), accu(at)));
      c->loopStep = std::move(step);
      c->result = accu(at);
      return c;
    }
    if (name == "sortBy" && n == 2) {
      // cel-go ext lists: cel.bind(@__sortBy_input__, target,
      //   @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(v, key)))
      const ExprKind k = target->kind;
      if (k != ExprKind::List && k != ExprKind::Select && k != ExprKind::Ident &&
          k != ExprKind::Comprehension && k != ExprKind::Call)
        return macroError(
            *target,
            "sortBy can only be applied to a list, identifier, comprehension, call or select expression");
      const std::string var = "@__sortBy_input__";
      ExprPtr keys = mapMacro(at, ident(at, var), std::move(args));
      if (!keys) return nullptr;
      ExprPtr bind = newExpr(at, ExprKind::Comprehension);
      bind->iterRange = newExpr(at, ExprKind::List);
      bind->iterVar = "#unused";
      bind->accuVar = var;
      bind->accuInit = std::move(target);
      bind->loopCondition = constant(at, Value::boolean(false));
      bind->loopStep = ident(at, var);
      bind->result = call(at, "@sortByAssociatedKeys", ident(at, var), vec(std::move(keys)));
      return bind;
    }
    if ((name == "optMap" || name == "optFlatMap") && n == 2) {
      // cel-go: target.hasValue() ? [optional.of](cel.bind(v, target.value(), expr)) : optional.none()
      if (args[0]->kind != ExprKind::Ident)
        return macroError(*args[0], name + "() variable name must be a simple identifier");
      ExprPtr copy = cloneExpr(*target);
      ExprPtr bind = newExpr(at, ExprKind::Comprehension);
      bind->iterRange = newExpr(at, ExprKind::List);
      bind->iterVar = "#unused";
      bind->accuVar = args[0]->name;
      bind->accuInit = call(at, "value", std::move(copy), {});
      bind->loopCondition = constant(at, Value::boolean(false));
      bind->loopStep = ident(at, bind->accuVar);
      bind->result = std::move(args[1]);
      ExprPtr some =
          name == "optMap" ? call(at, "optional.of", nullptr, vec(std::move(bind))) : std::move(bind);
      return call(at, op::kConditional, nullptr,
                  vec(call(at, "hasValue", std::move(target), {}), std::move(some),
                      call(at, "optional.none", nullptr, {})));
    }
    return call(at, name.c_str(), std::move(target), std::move(args));
  }

  // Checks the iteration variables of a comprehension macro; false (with the error reported) if bad.
  bool iterVars(const std::vector<ExprPtr>& args, size_t count, const char* notIdent) {
    for (size_t i = 0; i < count; ++i) {
      if (args[i]->kind != ExprKind::Ident) {
        macroError(*args[i], notIdent);
        return false;
      }
      if (args[i]->name == kAccumulator || args[i]->name == "__result__") {
        macroError(*args[i], "iteration variable overwrites accumulator variable");
        return false;
      }
    }
    if (count == 2 && args[0]->name == args[1]->name) {
      macroError(*args[1], "duplicate variable name: " + args[1]->name);
      return false;
    }
    return true;
  }

  ExprPtr quantifier(const Token& at, const std::string& kind, ExprPtr target, std::vector<ExprPtr> args) {
    const size_t vars = args.size() - 1;
    if (!iterVars(args, vars, "argument must be a simple name")) return placeholder(*args[0]);
    ExprPtr c = newExpr(at, ExprKind::Comprehension);
    c->iterRange = std::move(target);
    c->iterVar = args[0]->name;
    if (vars == 2) c->iterVar2 = args[1]->name;
    c->accuVar = kAccumulator;
    ExprPtr predicate = std::move(args[vars]);
    if (kind == "all") {
      c->accuInit = constant(at, Value::boolean(true));
      c->loopCondition = call(at, op::kNotStrictlyFalse, nullptr, vec(accu(at)));
      c->loopStep = call(at, op::kLogicalAnd, nullptr, vec(accu(at), std::move(predicate)));
      c->result = accu(at);
    } else if (kind == "exists") {
      c->accuInit = constant(at, Value::boolean(false));
      c->loopCondition =
          call(at, op::kNotStrictlyFalse, nullptr, vec(call(at, op::kLogicalNot, nullptr, vec(accu(at)))));
      c->loopStep = call(at, op::kLogicalOr, nullptr, vec(accu(at), std::move(predicate)));
      c->result = accu(at);
    } else {  // exists_one / existsOne
      c->accuInit = constant(at, Value::integer(0));
      c->loopCondition = constant(at, Value::boolean(true));
      c->loopStep =
          call(at, op::kConditional, nullptr,
               vec(std::move(predicate),
                   call(at, op::kAdd, nullptr, vec(accu(at), constant(at, Value::integer(1)))), accu(at)));
      c->result = call(at, op::kEquals, nullptr, vec(accu(at), constant(at, Value::integer(1))));
    }
    return c;
  }

  ExprPtr mapMacro(const Token& at, ExprPtr target, std::vector<ExprPtr> args) {
    if (!iterVars(args, 1, "argument is not an identifier")) return placeholder(*args[0]);
    ExprPtr c = newExpr(at, ExprKind::Comprehension);
    c->iterRange = std::move(target);
    c->iterVar = args[0]->name;
    c->accuVar = kAccumulator;
    c->accuInit = newExpr(at, ExprKind::List);
    c->loopCondition = constant(at, Value::boolean(true));
    ExprPtr fn = std::move(args.back());
    ExprPtr elem = newExpr(at, ExprKind::List);
    elem->args.push_back(std::move(fn));
    ExprPtr step = call(at, op::kAdd, nullptr, vec(accu(at), std::move(elem)));
    if (args.size() == 3)
      step = call(at, op::kConditional, nullptr, vec(std::move(args[1]), std::move(step), accu(at)));
    c->loopStep = std::move(step);
    c->result = accu(at);
    return c;
  }

  ExprPtr filterMacro(const Token& at, ExprPtr target, std::vector<ExprPtr> args) {
    if (!iterVars(args, 1, "argument is not an identifier")) return placeholder(*args[0]);
    ExprPtr c = newExpr(at, ExprKind::Comprehension);
    c->iterRange = std::move(target);
    c->iterVar = args[0]->name;
    c->accuVar = kAccumulator;
    c->accuInit = newExpr(at, ExprKind::List);
    c->loopCondition = constant(at, Value::boolean(true));
    ExprPtr elem = newExpr(at, ExprKind::List);
    elem->args.push_back(ident(at, c->iterVar));
    ExprPtr step = call(at, op::kAdd, nullptr, vec(accu(at), std::move(elem)));
    c->loopStep = call(at, op::kConditional, nullptr, vec(std::move(args[1]), std::move(step), accu(at)));
    c->result = accu(at);
    return c;
  }

  // A macro's error: reported, and parsing goes on (cel-go reports the errors of enclosing and later
  // macros too) with a placeholder in the macro's place.
  ExprPtr macroError(const Expr& at, const std::string& message) {
    report(out_.source.offsetOf(at.id), message, true);
    return placeholder(at);
  }

  ExprPtr placeholder(const Expr& at) {
    auto c = std::make_unique<Expr>();
    c->id = out_.nextId++;
    out_.source.setOffset(c->id, out_.source.offsetOf(at.id));
    return c;
  }

  // Node construction -----------------------------------------------------------------------------------

  // A deep copy with fresh ids at the same source offsets (macros that use an argument twice).
  ExprPtr cloneExpr(const Expr& e) {
    auto c = std::make_unique<Expr>();
    c->id = out_.nextId++;
    out_.source.setOffset(c->id, out_.source.offsetOf(e.id));
    c->kind = e.kind;
    c->constant = e.constant;
    c->name = e.name;
    c->testOnly = e.testOnly;
    c->optionalChain = e.optionalChain;
    c->optionalAt = e.optionalAt;
    c->iterVar = e.iterVar;
    c->iterVar2 = e.iterVar2;
    c->accuVar = e.accuVar;
    const auto copy = [&](const ExprPtr& p) { return p ? cloneExpr(*p) : nullptr; };
    c->operand = copy(e.operand);
    for (const ExprPtr& a : e.args) c->args.push_back(copy(a));
    for (const MapEntry& m : e.entries) c->entries.push_back({copy(m.key), copy(m.value), m.optional});
    c->iterRange = copy(e.iterRange);
    c->accuInit = copy(e.accuInit);
    c->loopCondition = copy(e.loopCondition);
    c->loopStep = copy(e.loopStep);
    c->result = copy(e.result);
    return c;
  }

  ExprPtr newExpr(const Token& at, ExprKind kind) {
    auto e = std::make_unique<Expr>();
    e->id = out_.nextId++;
    e->kind = kind;
    out_.source.setOffset(e->id, cpOffset_[at.begin]);
    return e;
  }
  ExprPtr constant(const Token& at, Value v) {
    ExprPtr e = newExpr(at, ExprKind::Constant);
    e->constant = std::move(v);
    return e;
  }
  ExprPtr ident(const Token& at, std::string name) {
    ExprPtr e = newExpr(at, ExprKind::Ident);
    e->name = std::move(name);
    return e;
  }
  ExprPtr accu(const Token& at) { return ident(at, kAccumulator); }
  ExprPtr select(const Token& at, ExprPtr operand, std::string field, bool testOnly) {
    ExprPtr e = newExpr(at, ExprKind::Select);
    e->operand = std::move(operand);
    e->name = std::move(field);
    e->testOnly = testOnly;
    return e;
  }
  ExprPtr call(const Token& at, const char* fn, ExprPtr target, std::vector<ExprPtr> args) {
    ExprPtr e = newExpr(at, ExprKind::Call);
    e->name = fn;
    e->operand = std::move(target);
    e->args = std::move(args);
    return e;
  }
  template <typename... E>
  static std::vector<ExprPtr> vec(E&&... e) {
    std::vector<ExprPtr> v;
    (v.push_back(std::forward<E>(e)), ...);
    return v;
  }

  // Tokens and errors ---------------------------------------------------------------------------------

  const Token& cur() const { return tokens_[std::min(at_, tokens_.size() - 1)]; }
  Tok peekKind(size_t k) const { return tokens_[std::min(at_ + k, tokens_.size() - 1)].kind; }
  Token take() {
    const Token t = cur();
    if (at_ < tokens_.size() - 1) ++at_;
    return t;
  }
  std::string_view textOf(const Token& t) const { return text_.substr(t.begin, t.end - t.begin); }
  bool isMessageAhead() const {
    size_t k = 0;
    while (peekKind(k) == Tok::Dot && peekKind(k + 1) == Tok::Ident) k += 2;
    return k > 0 && peekKind(k) == Tok::LBrace;
  }

  // ANTLR's recoverInline: when the next token is the expected one, the current one is extraneous
  // (reported and skipped); when the current token could follow the expected one, that one is missing
  // (reported and taken as present); otherwise the input is mismatched.
  void expect(Tok kind, const char* what, bool exprFollows = false) {
    if (failed_) return;
    if (cur().kind == kind) {
      take();
      return;
    }
    const std::string found = cur().kind == Tok::End ? "<EOF>" : std::string(textOf(cur()));
    if (peekKind(1) == kind) {
      report(cur().begin, "Syntax error: extraneous input '" + found + "' expecting " + what);
      take();
      take();
      return;
    }
    if (exprFollows ? startsExpression(cur().kind) : canFollowCloser(cur().kind)) {
      report(cur().begin, "Syntax error: missing " + std::string(what) + " at '" + found + "'");
      return;
    }
    syntaxError(cur(), what);
  }

  static bool startsExpression(Tok k) {
    switch (k) {
      case Tok::LBracket:
      case Tok::LBrace:
      case Tok::LParen:
      case Tok::Dot:
      case Tok::Minus:
      case Tok::Not:
      case Tok::True:
      case Tok::False:
      case Tok::Null:
      case Tok::Int:
      case Tok::Uint:
      case Tok::Double:
      case Tok::String:
      case Tok::Bytes:
      case Tok::Ident:
        return true;
      default:
        return false;
    }
  }

  // The end of a list or map literal: after the elements ANTLR expects the optional trailing ',' or the
  // closer; a token there is extraneous when one of those follows it, else the input is mismatched.
  void closeAggregate(Tok closer, const char* expecting) {
    if (failed_) return;
    if (cur().kind == closer) {
      take();
      return;
    }
    if (cur().kind != Tok::End && (peekKind(1) == closer || peekKind(1) == Tok::Comma)) {
      report(cur().begin,
             "Syntax error: extraneous input '" + std::string(textOf(cur())) + "' expecting " + expecting);
      take();
      if (cur().kind == Tok::Comma) take();
      if (cur().kind == closer) {
        take();
        return;
      }
    }
    syntaxError(cur(), expecting);
  }

  // Tokens that can follow a closing ')' ']' '}' of a primary expression.
  static bool canFollowCloser(Tok k) {
    switch (k) {
      case Tok::End:
      case Tok::RParen:
      case Tok::RBracket:
      case Tok::RBrace:
      case Tok::Comma:
      case Tok::Colon:
      case Tok::Question:
      case Tok::Dot:
      case Tok::LBracket:
      case Tok::Or:
      case Tok::And:
      case Tok::Eq:
      case Tok::Ne:
      case Tok::Lt:
      case Tok::Le:
      case Tok::Gt:
      case Tok::Ge:
      case Tok::In:
      case Tok::Plus:
      case Tok::Minus:
      case Tok::Star:
      case Tok::Slash:
      case Tok::Percent:
        return true;
      default:
        return false;
    }
  }

  void syntaxError(const Token& t, const std::string& expecting) {
    if (failed_) return;
    failed_ = true;
    if (t.kind == Tok::Invalid) {
      report(t.begin, "Syntax error: token recognition error at: '" + std::string(textOf(t)) + "'");
      return;
    }
    const std::string found = t.kind == Tok::End ? "<EOF>" : std::string(textOf(t));
    report(t.begin, "Syntax error: mismatched input '" + found + "' expecting " + expecting);
  }

  void report(size_t byteOffset, const std::string& message, bool isCpOffset = false) {
    issues_.add(isCpOffset ? static_cast<int32_t>(byteOffset) : cpOffset_[std::min(byteOffset, text_.size())],
                message);
  }

  struct DepthGuard {
    explicit DepthGuard(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxRecursionDepth && !p_.failed_) {
        p_.failed_ = true;
        p_.issues_.add(0, "expression recursion limit exceeded: " + std::to_string(kMaxRecursionDepth));
      }
    }
    ~DepthGuard() { --p_.depth_; }
    Parser& p_;
  };

  std::string_view text_;
  ParsedExpr& out_;
  Issues& issues_;
  std::vector<int32_t> cpOffset_;
  std::vector<Token> tokens_;
  size_t at_ = 0;
  int depth_ = 0;
  bool failed_ = false;
};

}  // namespace

SourceInfo::SourceInfo(std::string text) : text_(std::move(text)) {
  lineStarts_.push_back(0);
  lineByteStarts_.push_back(0);
  int32_t cp = 0;
  for (size_t i = 0; i < text_.size(); ++i) {
    if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++cp;
    if (text_[i] == '\n') {
      lineStarts_.push_back(cp);
      lineByteStarts_.push_back(i + 1);
    }
  }
}

int32_t SourceInfo::offsetOf(int64_t id) const {
  auto it = offsets_.find(id);
  return it == offsets_.end() ? 0 : it->second;
}

std::pair<int, int> SourceInfo::location(int32_t offset) const {
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  const auto line = static_cast<int>(it - lineStarts_.begin());
  return {line, offset - lineStarts_[static_cast<size_t>(line - 1)]};
}

std::string_view SourceInfo::line(int lineNumber) const {
  const auto i = static_cast<size_t>(lineNumber - 1);
  if (i >= lineByteStarts_.size()) return {};
  const size_t begin = lineByteStarts_[i];
  const size_t end = i + 1 < lineByteStarts_.size() ? lineByteStarts_[i + 1] - 1 : text_.size();
  return std::string_view(text_).substr(begin, end - begin);
}

std::string Issues::toString(const SourceInfo& source) const {
  // cel-go keeps the first 100 errors reported and says how many more there were.
  constexpr size_t kMaxReported = 100;
  std::vector<Item> sorted(
      items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(std::min(items_.size(), kMaxReported)));
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Item& a, const Item& b) { return a.offset < b.offset; });
  std::string out;
  for (const Item& item : sorted) {
    if (!out.empty()) out += '\n';
    const auto [line, column] = source.location(item.offset);
    out += "ERROR: <input>:" + std::to_string(line) + ":" + std::to_string(column + 1) + ": " + item.message;
    std::string snippet(source.line(line));
    std::replace(snippet.begin(), snippet.end(), '\t', ' ');
    out += "\n | " + snippet + "\n | ";
    // One dot per code point before the column (a wide dot under wide characters), then the caret.
    size_t byte = 0;
    for (int c = 0; c < column && byte < snippet.size(); ++c) {
      size_t n = 1;
      while (byte + n < snippet.size() && (static_cast<unsigned char>(snippet[byte + n]) & 0xC0) == 0x80) ++n;
      out += n > 1 ? "\xEF\xBC\x8E" : ".";
      byte += n;
    }
    const bool wide = byte < snippet.size() && (static_cast<unsigned char>(snippet[byte]) & 0x80) != 0;
    out += wide ? "\xEF\xBC\xBE" : "^";
  }
  if (items_.size() > kMaxReported)
    out += "\n" + std::to_string(items_.size() - kMaxReported) + " more errors were truncated";
  return out;
}

ParsedExpr parse(std::string_view text, Issues& issues) {
  ParsedExpr out{nullptr, SourceInfo(std::string(text)), 1};
  Parser parser(text, out, issues);
  out.expr = parser.parseAll();
  return out;
}

}  // namespace ks::cel
