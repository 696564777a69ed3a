#include "pkg/dra/cel/url.h"

#include <algorithm>

#include "pkg/dra/cel/goquote.h"
#include "pkg/dra/cel/net.h"

namespace ks::cel {
namespace {

enum class Encoding { Path, PathSegment, Host, Zone, UserPassword, QueryComponent, Fragment };

bool isAlnum(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Go's shouldEscape (RFC 3986 per URL part).
bool shouldEscape(unsigned char c, Encoding mode) {
  if (isAlnum(c)) return false;
  if (mode == Encoding::Host || mode == Encoding::Zone) {
    switch (c) {
      case '!':
      case '$':
      case '&':
      case '\'':
      case '(':
      case ')':
      case '*':
      case '+':
      case ',':
      case ';':
      case '=':
      case ':':
      case '[':
      case ']':
      case '<':
      case '>':
      case '"':
        return false;
      default:
        break;
    }
  }
  switch (c) {
    case '-':
    case '_':
    case '.':
    case '~':
      return false;
    case '$':
    case '&':
    case '+':
    case ',':
    case '/':
    case ':':
    case ';':
    case '=':
    case '?':
    case '@':
      switch (mode) {
        case Encoding::Path:
          return c == '?';
        case Encoding::PathSegment:
          return c == '/' || c == ';' || c == ',' || c == '?';
        case Encoding::UserPassword:
          return c == '@' || c == '/' || c == '?' || c == ':';
        case Encoding::QueryComponent:
          return true;
        case Encoding::Fragment:
          return false;
        default:
          break;
      }
      break;
    default:
      break;
  }
  if (mode == Encoding::Fragment && (c == '!' || c == '(' || c == ')' || c == '*')) return false;
  return true;
}

bool isHex(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
unsigned char unhex(unsigned char c) {
  return static_cast<unsigned char>(9 * (c >> 6) + (c & 15));
}

// Go's unescape, with its EscapeError and InvalidHostError texts.
Result<std::string> unescape(std::string_view s, Encoding mode) {
  size_t n = 0;
  bool hasPlus = false;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '%') {
      ++n;
      if (i + 2 >= s.size() || !isHex(static_cast<unsigned char>(s[i + 1])) ||
          !isHex(static_cast<unsigned char>(s[i + 2])))
        return Error("invalid URL escape " + goQuote(s.substr(i, 3)));
      const std::string_view escape = s.substr(i, 3);
      if (mode == Encoding::Host && unhex(static_cast<unsigned char>(s[i + 1])) < 8 && escape != "%25")
        return Error("invalid URL escape " + goQuote(escape));
      if (mode == Encoding::Zone) {
        const auto v = static_cast<unsigned char>(unhex(static_cast<unsigned char>(s[i + 1])) << 4 |
                                                  unhex(static_cast<unsigned char>(s[i + 2])));
        if (escape != "%25" && v != ' ' && shouldEscape(v, Encoding::Host))
          return Error("invalid URL escape " + goQuote(escape));
      }
      i += 3;
    } else if (c == '+') {
      hasPlus = mode == Encoding::QueryComponent;
      ++i;
    } else {
      if ((mode == Encoding::Host || mode == Encoding::Zone) && c < 0x80 && shouldEscape(c, mode))
        return Error("invalid character " + goQuote(s.substr(i, 1)) + " in host name");
      ++i;
    }
  }
  if (n == 0 && !hasPlus) return std::string(s);
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      out += static_cast<char>(unhex(static_cast<unsigned char>(s[i + 1])) << 4 |
                               unhex(static_cast<unsigned char>(s[i + 2])));
      i += 2;
    } else if (s[i] == '+') {
      out += mode == Encoding::QueryComponent ? ' ' : '+';
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string escape(std::string_view s, Encoding mode) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == ' ' && mode == Encoding::QueryComponent) {
      out += '+';
    } else if (shouldEscape(c, mode)) {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

bool validEncoded(std::string_view s, Encoding mode) {
  static constexpr std::string_view kAllowed = "!$&'()*+,;=:@[]%";
  return std::all_of(s.begin(), s.end(), [&](char c) {
    return kAllowed.find(c) != std::string_view::npos || !shouldEscape(static_cast<unsigned char>(c), mode);
  });
}

bool validOptionalPort(std::string_view port) {
  if (port.empty()) return true;
  if (port[0] != ':') return false;
  return std::all_of(port.begin() + 1, port.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool validUserinfo(std::string_view s) {
  static constexpr std::string_view kAllowed = "-._:~!$&'()*+,;=%@";
  return std::all_of(s.begin(), s.end(), [](char c) {
    return isAlnum(static_cast<unsigned char>(c)) || kAllowed.find(c) != std::string_view::npos;
  });
}

bool containsControlByte(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return b < ' ' || b == 0x7F;
  });
}

// Go's getScheme: the scheme and the rest, or the whole text as the rest when there is no scheme.
Result<std::pair<std::string_view, std::string_view>> splitScheme(std::string_view raw) {
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
      if (i == 0) return std::pair{std::string_view(), raw};
      continue;
    }
    if (c == ':') {
      if (i == 0) return Error("missing protocol scheme");
      return std::pair{raw.substr(0, i), raw.substr(i + 1)};
    }
    return std::pair{std::string_view(), raw};
  }
  return std::pair{std::string_view(), raw};
}

// Go's parseHost (Go 1.26).
Result<std::string> parseHost(std::string_view scheme, std::string_view host) {
  const size_t open = host.rfind('[');
  if (open != std::string_view::npos && open > 0) return Error("invalid IP-literal");
  if (open == 0) {
    const size_t close = host.rfind(']');
    if (close == std::string_view::npos) return Error("missing ']' in host");
    const std::string_view colonPort = host.substr(close + 1);
    if (!validOptionalPort(colonPort)) return Error("invalid port " + goQuote(colonPort) + " after host");
    auto port = unescape(colonPort, Encoding::Host);
    if (!port.ok()) return port.error();
    const std::string_view hostname = host.substr(1, close - 1);
    std::string unescaped;
    if (const size_t zone = hostname.find("%25"); zone != std::string_view::npos) {
      auto hostPart = unescape(hostname.substr(0, zone), Encoding::Host);
      if (!hostPart.ok()) return hostPart.error();
      auto zonePart = unescape(hostname.substr(zone), Encoding::Zone);
      if (!zonePart.ok()) return zonePart.error();
      unescaped = *hostPart + *zonePart;
    } else {
      auto h = unescape(hostname, Encoding::Host);
      if (!h.ok()) return h.error();
      unescaped = *h;
    }
    auto addr = parseNetipAddr(unescaped);
    if (!addr.ok()) return Error("invalid host: " + addr.error().message());
    if (addr->is4) return Error("invalid IP-literal");
    return "[" + unescaped + "]" + *port;
  }
  if (size_t colon = host.find(':'); colon != std::string_view::npos) {
    // With the GODEBUG default of a go 1.26 module (urlstrictcolons=1, as Kubernetes v1.37 builds) an http
    // or https host may not contain colons, so the first one starts the port; other schemes keep the
    // historic last colon.
    if (scheme != "http" && scheme != "https") colon = host.rfind(':');
    const std::string_view colonPort = host.substr(colon);
    if (!validOptionalPort(colonPort)) return Error("invalid port " + goQuote(colonPort) + " after host");
  }
  return unescape(host, Encoding::Host);
}

Result<void> parseAuthority(std::string_view authority, GoURL& url) {
  const size_t at = authority.rfind('@');
  auto host = parseHost(url.scheme, at == std::string_view::npos ? authority : authority.substr(at + 1));
  if (!host.ok()) return host.error();
  url.host = *host;
  if (at == std::string_view::npos) return {};
  const std::string_view userinfo = authority.substr(0, at);
  if (!validUserinfo(userinfo)) return Error("net/url: invalid userinfo");
  const size_t colon = userinfo.find(':');
  auto username = unescape(userinfo.substr(0, colon), Encoding::UserPassword);
  if (!username.ok()) return username.error();
  std::optional<std::string> password;
  if (colon != std::string_view::npos) {
    auto p = unescape(userinfo.substr(colon + 1), Encoding::UserPassword);
    if (!p.ok()) return p.error();
    password = *p;
  }
  url.user = std::pair{*username, password};
  return {};
}

Result<void> setPath(std::string_view p, GoURL& url) {
  auto path = unescape(p, Encoding::Path);
  if (!path.ok()) return path.error();
  url.path = *path;
  url.rawPath = escape(url.path, Encoding::Path) == p ? "" : std::string(p);
  return {};
}

// Go's parse (without the fragment, which Parse splits off first).
Result<GoURL> parse(std::string_view raw, bool viaRequest) {
  if (containsControlByte(raw)) return Error("net/url: invalid control character in URL");
  if (raw.empty() && viaRequest) return Error("empty url");
  GoURL url;
  if (raw == "*") {
    url.path = "*";
    return url;
  }
  auto scheme = splitScheme(raw);
  if (!scheme.ok()) return scheme.error();
  url.scheme = std::string(scheme->first);
  std::transform(url.scheme.begin(), url.scheme.end(), url.scheme.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
  std::string_view rest = scheme->second;
  if (rest.ends_with('?') && std::count(rest.begin(), rest.end(), '?') == 1) {
    url.forceQuery = true;
    rest.remove_suffix(1);
  } else if (const size_t q = rest.find('?'); q != std::string_view::npos) {
    url.rawQuery = std::string(rest.substr(q + 1));
    rest = rest.substr(0, q);
  }
  if (!rest.starts_with('/')) {
    if (!url.scheme.empty()) {
      url.opaque = std::string(rest);
      return url;
    }
    if (viaRequest) return Error("invalid URI for request");
    if (rest.substr(0, rest.find('/')).find(':') != std::string_view::npos)
      return Error("first path segment in URL cannot contain colon");
  }
  if ((!url.scheme.empty() || (!viaRequest && !rest.starts_with("///"))) && rest.starts_with("//")) {
    std::string_view authority = rest.substr(2);
    rest = {};
    if (const size_t slash = authority.find('/'); slash != std::string_view::npos) {
      rest = authority.substr(slash);
      authority = authority.substr(0, slash);
    }
    if (auto r = parseAuthority(authority, url); !r.ok()) return r.error();
  } else if (!url.scheme.empty() && rest.starts_with('/')) {
    url.omitHost = true;
  }
  if (auto r = setPath(rest, url); !r.ok()) return r.error();
  return url;
}

Error urlError(std::string_view raw, const Error& e) {
  return Error("parse " + goQuote(raw) + ": " + e.message());
}

// Go's splitHostPort of URL.Host.
std::pair<std::string, std::string> splitHostPort(std::string_view hostPort) {
  std::string_view host = hostPort, port;
  const size_t colon = host.rfind(':');
  if (colon != std::string_view::npos && validOptionalPort(host.substr(colon))) {
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.starts_with('[') && host.ends_with(']')) host = host.substr(1, host.size() - 2);
  return {std::string(host), std::string(port)};
}

}  // namespace

Result<GoURL> parseRequestURI(std::string_view raw) {
  auto url = parse(raw, true);
  if (!url.ok()) return urlError(raw, url.error());
  return url;
}

Result<GoURL> parseURL(std::string_view raw) {
  const size_t hash = raw.find('#');
  const std::string_view beforeFragment = raw.substr(0, hash);
  auto url = parse(beforeFragment, false);
  if (!url.ok()) return urlError(beforeFragment, url.error());
  if (hash == std::string_view::npos || hash + 1 == raw.size()) return url;
  const std::string_view f = raw.substr(hash + 1);
  auto fragment = unescape(f, Encoding::Fragment);
  if (!fragment.ok()) return urlError(raw, fragment.error());
  url->fragment = *fragment;
  url->rawFragment = escape(url->fragment, Encoding::Fragment) == f ? "" : std::string(f);
  return url;
}

std::string GoURL::escapedPath() const {
  if (!rawPath.empty() && validEncoded(rawPath, Encoding::Path)) {
    auto p = unescape(rawPath, Encoding::Path);
    if (p.ok() && *p == path) return rawPath;
  }
  if (path == "*") return "*";
  return escape(path, Encoding::Path);
}

std::string GoURL::toString() const {
  std::string out;
  if (!scheme.empty()) out += scheme + ":";
  if (!opaque.empty()) {
    out += opaque;
  } else {
    if ((!scheme.empty() || !host.empty() || user) && !(omitHost && host.empty() && !user)) {
      if (!host.empty() || !path.empty() || user) out += "//";
      if (user) {
        out += escape(user->first, Encoding::UserPassword);
        if (user->second) out += ":" + escape(*user->second, Encoding::UserPassword);
        out += '@';
      }
      out += escape(host, Encoding::Host);
    }
    const std::string p = escapedPath();
    if (!p.empty() && p[0] != '/' && !host.empty()) out += '/';
    if (out.empty() && p.substr(0, p.find('/')).find(':') != std::string::npos) out += "./";
    out += p;
  }
  if (forceQuery || !rawQuery.empty()) out += "?" + rawQuery;
  if (!fragment.empty()) {
    std::string f = escape(fragment, Encoding::Fragment);
    if (!rawFragment.empty() && validEncoded(rawFragment, Encoding::Fragment)) {
      auto u = unescape(rawFragment, Encoding::Fragment);
      if (u.ok() && *u == fragment) f = rawFragment;
    }
    out += "#" + f;
  }
  return out;
}

std::string GoURL::hostname() const {
  return splitHostPort(host).first;
}

std::string GoURL::port() const {
  return splitHostPort(host).second;
}

std::vector<std::pair<std::string, std::vector<std::string>>> GoURL::query() const {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  // Go's parseQuery: '&'-separated, pairs with ';' or a bad escape skipped; at most 10000 pairs.
  if (std::count(rawQuery.begin(), rawQuery.end(), '&') + 1 > 10000) return out;
  std::string_view q = rawQuery;
  while (!q.empty()) {
    const size_t amp = q.find('&');
    std::string_view pair = q.substr(0, amp);
    q = amp == std::string_view::npos ? std::string_view() : q.substr(amp + 1);
    if (pair.find(';') != std::string_view::npos || pair.empty()) continue;
    const size_t eq = pair.find('=');
    auto key = unescape(pair.substr(0, eq), Encoding::QueryComponent);
    if (!key.ok()) continue;
    auto value = unescape(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1),
                          Encoding::QueryComponent);
    if (!value.ok()) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == *key; });
    if (it == out.end()) {
      out.emplace_back(*key, std::vector<std::string>{*value});
    } else {
      it->second.push_back(*value);
    }
  }
  return out;
}

}  // namespace ks::cel
