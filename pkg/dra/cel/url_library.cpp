// Kubernetes' CEL library for URLs (k8s.io/apiserver/pkg/cel/library urls.go), on url.h's net/url rules.

#include "pkg/dra/cel/libraries.h"
#include "pkg/dra/cel/url.h"

namespace ks::cel {
namespace {

using Args = std::span<const Value>;

// url(): the text must be a request URI (absolute, or an absolute path) and parse as a URL.
Value urlFn(Args a) {
  const std::string& text = a[0].text();
  const std::string context = "URL parse error during conversion from string: ";
  if (auto r = parseRequestURI(text); !r.ok()) return Value::error(context + r.error().message());
  auto u = parseURL(text);
  if (!u.ok()) return Value::error(context + u.error().message());
  return Value::url(std::move(*u));
}

Value isURLFn(Args a) {
  return Value::boolean(parseRequestURI(a[0].text()).ok());
}
Value getScheme(Args a) {
  return Value::string(a[0].asURL().scheme);
}
Value getHost(Args a) {
  return Value::string(a[0].asURL().host);
}
Value getHostname(Args a) {
  return Value::string(a[0].asURL().hostname());
}
Value getPort(Args a) {
  return Value::string(a[0].asURL().port());
}
Value getEscapedPath(Args a) {
  return Value::string(a[0].asURL().escapedPath());
}

Value getQuery(Args a) {
  std::vector<std::pair<Value, Value>> entries;
  for (const auto& [key, values] : a[0].asURL().query()) {
    ValueList list;
    for (const std::string& v : values) list.push_back(Value::string(v));
    entries.emplace_back(Value::string(key), Value::list(std::move(list)));
  }
  return Value::map(std::make_shared<const EntryMap>(std::move(entries)));
}

}  // namespace

void defineUrlLibrary(FunctionRegistry& r) {
  constexpr bool G = false, M = true;
  r.define("url", "string_to_url", G, {"string"}, "kubernetes.URL", urlFn);
  r.define("isURL", "is_url_string", G, {"string"}, "bool", isURLFn);
  r.define("getScheme", "url_get_scheme", M, {"kubernetes.URL"}, "string", getScheme);
  r.define("getHost", "url_get_host", M, {"kubernetes.URL"}, "string", getHost);
  r.define("getHostname", "url_get_hostname", M, {"kubernetes.URL"}, "string", getHostname);
  r.define("getPort", "url_get_port", M, {"kubernetes.URL"}, "string", getPort);
  r.define("getEscapedPath", "url_get_escaped_path", M, {"kubernetes.URL"}, "string", getEscapedPath);
  r.define("getQuery", "url_get_query", M, {"kubernetes.URL"}, "map(string, list(string))", getQuery);
}

}  // namespace ks::cel
