// cel-go's string.format() (ext strings version 2) and Kubernetes' format library.

#include <re2/re2.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "pkg/dra/cel/format.h"
#include "pkg/dra/cel/libraries.h"
#include "pkg/dra/cel/url.h"

namespace ks::cel {
namespace {

using Args = std::span<const Value>;

Value stringFormat(Args a) {
  const ValueList& args = a[1].items();
  FormatOutcome out = interpolateFormat(a[0].text(), args.size(), true,
                                        [&](size_t i, char verb, std::optional<int64_t> precision) {
                                          return formatClause(args[i], verb, precision);
                                        });
  if (auto* f = std::get_if<FormatFailure>(&out)) return Value::error(f->message);
  return Value::string(std::move(std::get<std::string>(out)));
}

// Kubernetes' named formats -------------------------------------------------------------------------

// Go regexp's MatchString of "^<pattern>$" (RE2 has Go's syntax; $ is the end of the text).
bool fullMatch(std::string_view text, const char* pattern) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<re2::RE2>> compiled;
  std::lock_guard lock(mu);
  auto& re = compiled[pattern];
  if (!re) re = std::make_unique<re2::RE2>(pattern);
  return re2::RE2::FullMatch(re2::StringPiece(text.data(), text.size()), *re);
}

std::string maxLenError(int n) {
  return "must be no more than " + std::to_string(n) + " characters";
}

// apimachinery's RegexError: the message, examples, and the regular expression.
std::string regexError(std::string msg, const std::string& fmt, std::initializer_list<const char*> examples) {
  msg += " (e.g. ";
  bool first = true;
  for (const char* e : examples) {
    if (!first) msg += " or ";
    msg += "'" + std::string(e) + "', ";
    first = false;
  }
  return msg + "regex used for validation is '" + fmt + "')";
}

constexpr const char* kLabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr const char* kSubdomainFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr const char* kDns1035Fmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
constexpr const char* kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr const char* kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr const char* kQualifiedNameMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character";

std::vector<std::string> dns1123Label(std::string_view s) {
  std::vector<std::string> errs;
  if (s.size() > 63) errs.push_back(maxLenError(63));
  if (!fullMatch(s, kLabelFmt)) {
    errs.push_back(
        fullMatch(s, kSubdomainFmt)
            ? "must not contain dots"
            : regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
                         "or '-', and must start and end with an alphanumeric character",
                         kLabelFmt, {"my-name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> dns1123Subdomain(std::string_view s) {
  std::vector<std::string> errs;
  if (s.size() > 253) errs.push_back(maxLenError(253));
  if (!fullMatch(s, kSubdomainFmt))
    errs.push_back(
        regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                   "'-' or '.', and must start and end with an alphanumeric character",
                   kSubdomainFmt, {"example.com"}));
  return errs;
}

std::vector<std::string> dns1035Label(std::string_view s) {
  std::vector<std::string> errs;
  if (s.size() > 63) errs.push_back(maxLenError(63));
  if (!fullMatch(s, kDns1035Fmt))
    errs.push_back(
        regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
                   "with an alphabetic character, and end with an alphanumeric character",
                   kDns1035Fmt, {"my-name", "abc-123"}));
  return errs;
}

// apimachinery's maskTrailingDash for generateName prefixes: the last two characters become "a".
std::string maskTrailingDash(std::string_view s) {
  if (s.size() > 1 && s.back() == '-') return std::string(s.substr(0, s.size() - 2)) + "a";
  return std::string(s);
}

std::vector<std::string> qualifiedName(std::string_view s) {
  std::vector<std::string> errs;
  const std::string nameError =
      regexError(kQualifiedNameMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"});
  const size_t slashes = static_cast<size_t>(std::count(s.begin(), s.end(), '/'));
  if (slashes > 1)
    return {"a qualified name " + nameError +
            " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"};
  std::string_view name = s;
  if (slashes == 1) {
    const std::string_view prefix = s.substr(0, s.find('/'));
    name = s.substr(s.find('/') + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (const std::string& m : dns1123Subdomain(prefix)) errs.push_back("prefix part " + m);
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part " + maxLenError(63));
  }
  if (!fullMatch(name, kQualifiedNameFmt)) errs.push_back("name part " + nameError);
  return errs;
}

std::vector<std::string> labelValue(std::string_view s) {
  std::vector<std::string> errs;
  if (s.size() > 63) errs.push_back(maxLenError(63));
  if (!fullMatch(s, kLabelValueFmt))
    errs.push_back(
        regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', "
                   "'_' or '.', and must start and end with an alphanumeric character",
                   kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  return errs;
}

// Go's time.Parse("2006-01-02", s), as strfmt's date check uses it.
bool isDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (s[i] < '0' || s[i] > '9') return false;
  const int year = std::stoi(std::string(s.substr(0, 4)));
  const int month = std::stoi(std::string(s.substr(5, 2)));
  const int day = std::stoi(std::string(s.substr(8, 2)));
  static constexpr int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1) return false;
  const bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  return day <= days[month - 1] + (month == 2 && leap ? 1 : 0);
}

// kube-openapi strfmt's IsDateTime: lowercased, split at every 't', a date, then a time of day.
bool isDateTime(std::string_view s) {
  if (s.size() < 4) return false;
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
  const size_t t = lower.find('t');
  if (t == std::string::npos || !isDate(std::string_view(lower).substr(0, t))) return false;
  std::string_view time = std::string_view(lower).substr(t + 1);
  time = time.substr(0, time.find('t'));
  std::string hours, minutes, seconds;
  if (!re2::RE2::FullMatch(re2::StringPiece(time.data(), time.size()),
                           R"(([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2})))", &hours,
                           &minutes, &seconds))
    return false;
  return hours <= "23" && minutes <= "59" && seconds <= "59";
}

struct NamedFormat {
  const char* key;   // format.<key>()
  const char* name;  // the Format's Name (what equality compares)
  std::vector<std::string> (*validate)(std::string_view);
  int maxRegexSize;
};

std::vector<std::string> noErrors(bool ok, const char* message) {
  return ok ? std::vector<std::string>{} : std::vector<std::string>{message};
}

const std::vector<NamedFormat>& namedFormats() {
  static const std::vector<NamedFormat> formats = {
      {"dns1123Label", "DNS1123Label", dns1123Label, 30},
      {"dns1123Subdomain", "DNS1123Subdomain", dns1123Subdomain, 60},
      {"dns1035Label", "DNS1035Label", dns1035Label, 30},
      {"qualifiedName", "QualifiedName", qualifiedName, 60},
      {"dns1123LabelPrefix", "DNS1123LabelPrefix",
       [](std::string_view s) { return dns1123Label(maskTrailingDash(s)); }, 30},
      {"dns1123SubdomainPrefix", "DNS1123SubdomainPrefix",
       [](std::string_view s) { return dns1123Subdomain(maskTrailingDash(s)); }, 60},
      {"dns1035LabelPrefix", "DNS1035LabelPrefix",
       [](std::string_view s) { return dns1035Label(maskTrailingDash(s)); }, 30},
      {"labelValue", "LabelValue", labelValue, 40},
      {"uri", "URI",
       [](std::string_view s) {
         auto r = parseRequestURI(s);
         return r.ok() ? std::vector<std::string>{} : std::vector<std::string>{r.error().message()};
       },
       1103},
      {"uuid", "uuid",
       [](std::string_view s) {
         return noErrors(fullMatch(s, "(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}"),
                         "does not match the UUID format");
       },
       70},
      {"byte", "byte",
       [](std::string_view s) {
         return noErrors(
             fullMatch(
                 s, R"((?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4}))"),
             "invalid base64");
       },
       84},
      {"date", "date", [](std::string_view s) { return noErrors(isDate(s), "invalid date"); }, 71},
      {"datetime", "datetime", [](std::string_view s) { return noErrors(isDateTime(s), "invalid datetime"); },
       71},
  };
  return formats;
}

const NamedFormat* findFormat(std::string_view key) {
  for (const NamedFormat& f : namedFormats())
    if (key == f.key) return &f;
  return nullptr;
}

Value formatNamed(Args a) {
  const NamedFormat* f = findFormat(a[0].text());
  return f ? Value::optionalOf(Value::namedFormat(f->key)) : Value::optionalNone();
}

Value formatValidate(Args a) {
  const std::vector<std::string> errs = findFormat(a[0].text())->validate(a[1].text());
  if (errs.empty()) return Value::optionalNone();
  ValueList list;
  for (const std::string& e : errs) list.push_back(Value::string(e));
  return Value::optionalOf(Value::list(std::move(list)));
}

// format.<key>(): one function per format, each returning its constant.
template <size_t I>
Value constantFormat(Args) {
  return Value::namedFormat(namedFormats()[I].key);
}

template <size_t... I>
void defineConstantFormats(FunctionRegistry& r, std::index_sequence<I...>) {
  static const std::vector<std::string> names = {("format." + std::string(namedFormats()[I].key))...};
  (r.define(names[I].c_str(), names[I].c_str(), false, {}, "kubernetes.NamedFormat", constantFormat<I>), ...);
}

}  // namespace

uint64_t namedFormatMaxRegexSize(std::string_view key) {
  const NamedFormat* f = findFormat(key);
  return f ? static_cast<uint64_t>(f->maxRegexSize) : 0;
}

std::string_view namedFormatName(std::string_view key) {
  const NamedFormat* f = findFormat(key);
  return f ? f->name : "";
}

void defineFormatLibrary(FunctionRegistry& r) {
  r.define("format", "string_format", true, {"string", "list(dyn)"}, "string", stringFormat);
  r.define("format.named", "format-named", false, {"string"}, "optional_type(kubernetes.NamedFormat)",
           formatNamed);
  r.define("validate", "format-validate", true, {"kubernetes.NamedFormat", "string"},
           "optional_type(list(string))", formatValidate);
  defineConstantFormats(r, std::make_index_sequence<13>());
}

}  // namespace ks::cel
