#include "pkg/app/options.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>
#include <string_view>

#include "pkg/api/field.h"
#include "pkg/api/quantity.h"
#include "pkg/scheduler/apis/config/duration.h"
#include "pkg/scheduler/apis/config/validation.h"
#include "pkg/scheduler/metrics/component_metrics.h"
#include "pkg/scheduler/metrics/text_format.h"
#include "pkg/server/tls_options.h"
#include "pkg/util/go_duration.h"
#include "pkg/util/strings.h"
#include "pkg/util/version.h"

namespace ks::app {
namespace {

// ---- value parsers (pflag / strconv error texts) ----

Result<bool> parseBool(std::string_view v) {
  // strconv.ParseBool
  static const std::map<std::string_view, bool> kValues = {
      {"1", true},  {"t", true},  {"T", true},  {"true", true},   {"TRUE", true},   {"True", true},
      {"0", false}, {"f", false}, {"F", false}, {"false", false}, {"FALSE", false}, {"False", false}};
  auto it = kValues.find(v);
  if (it == kValues.end())
    return Error("strconv.ParseBool: parsing \"" + std::string(v) + "\": invalid syntax");
  return it->second;
}

Result<int64_t> parseInt(std::string_view v, int64_t min, int64_t max, const char* fn) {
  std::string s(v);
  if (s.empty()) return Error(std::string(fn) + ": parsing \"\": invalid syntax");
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size()) return Error(std::string(fn) + ": parsing \"" + s + "\": invalid syntax");
  if (errno == ERANGE || n < min || n > max) {
    return Error(std::string(fn) + ": parsing \"" + s + "\": value out of range");
  }
  return static_cast<int64_t>(n);
}

// strconv.ParseInt(v, 0, bits), as pflag's int and int32Slice values parse: a sign, then a 0x / 0o / 0b
// / 0 prefix picks the base, '_' may separate digits.
Result<int64_t> parseGoInt(std::string_view v, int bits) {
  const std::string quoted = "strconv.ParseInt: parsing \"" + std::string(v) + "\": ";
  std::string_view s = v;
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  bool prefixed = false;
  if (s.size() > 1 && s[0] == '0') {
    const char p = static_cast<char>(std::tolower(static_cast<unsigned char>(s[1])));
    base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 8;
    prefixed = p == 'x' || p == 'o' || p == 'b';
    s.remove_prefix(prefixed ? 2 : 1);
  }
  if (s.empty() && !(base == 8 && !prefixed)) return Error(quoted + "invalid syntax");
  // Go's underscoreOK: '_' only between digits, or right after a base prefix.
  bool lastDigit = prefixed || (base == 8 && !prefixed);
  uint64_t n = 0;
  const uint64_t limit = (uint64_t{1} << (bits - 1)) - (negative ? 0 : 1);
  bool overflow = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '_') {
      if (!lastDigit) return Error(quoted + "invalid syntax");
      lastDigit = false;
      continue;
    }
    const int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                  : std::isalpha(static_cast<unsigned char>(c))
                      ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                      : 99;
    if (d >= base) return Error(quoted + "invalid syntax");
    lastDigit = true;
    if (!overflow && (__builtin_mul_overflow(n, static_cast<uint64_t>(base), &n) ||
                      __builtin_add_overflow(n, static_cast<uint64_t>(d), &n) || n > limit)) {
      overflow = true;
    }
  }
  if (!lastDigit && !s.empty()) return Error(quoted + "invalid syntax");
  if (overflow) return Error(quoted + "value out of range");
  if (n == 0) return int64_t{0};
  return negative ? -static_cast<int64_t>(n - 1) - 1 : static_cast<int64_t>(n);
}

// pflag's boolean flags: strconv.ParseBool into `field`.
auto boolFlag(bool Options::*field) {
  return [field](Options& o, std::string_view v) -> VoidResult {
    auto b = parseBool(v);
    if (!b.ok()) return b.error();
    o.*field = *b;
    return {};
  };
}

// cliflag.NamedCertKey.Set: "crt,key" or "crt,key:name,name" (each part trimmed).
Result<server::SniCertKey> parseNamedCertKey(std::string_view value) {
  server::SniCertKey out;
  std::string_view keycert = value;
  if (const size_t colon = value.find(':'); colon != std::string_view::npos) {
    keycert = trim(value.substr(0, colon));
    const std::string_view names = trim(value.substr(colon + 1));
    if (names.empty()) return Error("empty names list is not allowed");
    for (std::string_view name : split(names, ',')) out.names.emplace_back(trim(name));
  } else {
    keycert = trim(value);
  }
  const size_t comma = keycert.find(',');
  if (comma == std::string_view::npos || keycert.find(',', comma + 1) != std::string_view::npos) {
    return Error("expected comma separated certificate and key file paths");
  }
  out.certFile = std::string(trim(keycert.substr(0, comma)));
  out.keyFile = std::string(trim(keycert.substr(comma + 1)));
  return out;
}

Result<float> parseFloat(std::string_view v) {
  std::string s(v);
  char* end = nullptr;
  errno = 0;
  float f = std::strtof(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || std::isnan(f)) {
    return Error("strconv.ParseFloat: parsing \"" + s + "\": invalid syntax");
  }
  if (errno == ERANGE) return Error("strconv.ParseFloat: parsing \"" + s + "\": value out of range");
  return f;
}

Result<std::chrono::milliseconds> parseDuration(std::string_view v) {
  auto d = config::parseGoDuration(v);
  if (!d.ok()) return d.error();
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

// Whether flag `name` has not been given before: pflag's list values replace their default when first set
// and append after that.
bool firstUse(const Options& o, std::string_view name) {
  return std::find(o.flagsSet.begin(), o.flagsSet.end(), name) == o.flagsSet.end();
}

// pflag's StringSlice: comma-separated ("" is no element); the first use replaces the default, later
// uses of the same flag append.
void setStringSlice(Options& o, const std::string& name, std::vector<std::string>& field, std::string_view v) {
  if (firstUse(o, name)) field.clear();
  size_t pos = 0;
  while (!v.empty() && pos <= v.size()) {
    size_t comma = v.find(',', pos);
    if (comma == std::string_view::npos) comma = v.size();
    field.emplace_back(v.substr(pos, comma - pos));
    pos = comma + 1;
  }
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool isIp(const std::string& s) {
  unsigned char buf[sizeof(struct in6_addr)];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

// pflag's stringToString: "k=v" (one pair, surrounding quotes trimmed) or CSV "k1=v1,k2=v2".
Result<std::map<std::string, std::string>> parseStringToString(std::string_view v) {
  std::vector<std::string> pairs;
  const auto eqs = std::count(v.begin(), v.end(), '=');
  if (eqs == 0) return Error(std::string(v) + " must be formatted as key=value");
  if (eqs == 1) {
    std::string_view t = v;
    while (!t.empty() && t.front() == '"') t.remove_prefix(1);
    while (!t.empty() && t.back() == '"') t.remove_suffix(1);
    pairs.emplace_back(t);
  } else {
    // encoding/csv, one record: fields split on ',', a field starting with '"' runs to its closing quote.
    std::string field;
    bool quoted = false;
    for (size_t i = 0; i < v.size(); ++i) {
      const char c = v[i];
      if (quoted) {
        if (c == '"' && i + 1 < v.size() && v[i + 1] == '"') {
          field += '"';
          ++i;
        } else if (c == '"') {
          quoted = false;
        } else {
          field += c;
        }
      } else if (c == '"' && field.empty()) {
        quoted = true;
      } else if (c == ',') {
        pairs.push_back(std::move(field));
        field.clear();
      } else {
        field += c;
      }
    }
    if (quoted) return Error("parse error: extraneous or missing \" in quoted-field");
    pairs.push_back(std::move(field));
  }
  std::map<std::string, std::string> out;
  for (const auto& pair : pairs) {
    const auto eq = pair.find('=');
    if (eq == std::string::npos) return Error(pair + " must be formatted as key=value");
    out[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  return out;
}

// upstream componentGlobalsRegistry.AddFlags' text, with the known gates as its "Options are:" list.
std::string featureGatesHelp() {
  std::string help =
      "Comma-separated list of component:key=value pairs that describe feature gates for alpha/experimental "
      "features of different components.\n"
      "If the component is not specified, defaults to \"kube\". This flag can be repeatedly invoked. For "
      "example: --feature-gates 'wardle:featureA=true,wardle:featureB=false' --feature-gates "
      "'kube:featureC=true'Options are:";
  for (const auto& line : features::knownFeaturesHelp()) help += "\n" + line;
  return help;
}

// ---- the flag table ----

struct Flag {
  std::string name;       // without dashes
  std::string shorthand;  // "v" for -v, or ""
  bool isBool = false;
  std::string valueType;  // for --help: "string", "int", "duration", ...
  std::string defaultText;
  std::string section;
  std::string help;
  bool deprecated = false;
  std::function<VoidResult(Options&, std::string_view)> set;
};

const std::vector<Flag>& flags() {
  static const std::vector<Flag> kFlags = [] {
    std::vector<Flag> f;
    auto str = [](std::string Options::*field) {
      return [field](Options& o, std::string_view v) -> VoidResult {
        o.*field = std::string(v);
        return {};
      };
    };
    auto dur = [](std::optional<std::chrono::milliseconds> LeaderElectionFlags::*field) {
      return [field](Options& o, std::string_view v) -> VoidResult {
        auto d = parseDuration(v);
        if (!d.ok()) return d.error();
        o.leaderElection.*field = *d;
        return {};
      };
    };
    auto leStr = [](std::optional<std::string> LeaderElectionFlags::*field) {
      return [field](Options& o, std::string_view v) -> VoidResult {
        o.leaderElection.*field = std::string(v);
        return {};
      };
    };

    // misc
    f.push_back({"config", "", false, "string", "", "Misc", "The path to the configuration file.", false,
                 str(&Options::configFile)});
    f.push_back({"master", "", false, "string", "", "Misc",
                 "The address of the Kubernetes API server (overrides any value in kubeconfig)", false,
                 str(&Options::master)});
    f.push_back({"write-config-to", "", false, "string", "", "Misc",
                 "If set, write the configuration values to this file and exit.", false,
                 str(&Options::writeConfigTo)});

    // secure serving
    f.push_back(
        {"bind-address", "", false, "ip", "0.0.0.0", "Secure serving",
         "The IP address on which to listen for the --secure-port port. The associated interface(s) must be "
         "reachable by the rest of the cluster, and by CLI/web clients. If blank or an unspecified address "
         "(0.0.0.0 or ::), all interfaces and IP address families will be used.",
         false, [](Options& o, std::string_view v) -> VoidResult {
           std::string s(v);
           if (!s.empty() && !isIp(s)) return Error("failed to parse IP: \"" + s + "\"");
           o.bindAddress = s;
           return {};
         }});
    f.push_back(
        {"cert-dir", "", false, "string", "", "Secure serving",
         "The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file "
         "are provided, this flag will be ignored.",
         false, str(&Options::certDir)});
    // HTTP/2 is never offered (no ALPN "h2"), so these two are accepted and validated only.
    f.push_back({"disable-http2-serving", "", true, "", "", "Secure serving",
                 "If true, HTTP2 serving will be disabled [default=false]", false,
                 boolFlag(&Options::disableHttp2Serving)});
    f.push_back({"http2-max-streams-per-connection", "", false, "int", "", "Secure serving",
                 "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 "
                 "connection. Zero means to use golang's default.",
                 false, [](Options& o, std::string_view v) -> VoidResult {
                   auto n = parseGoInt(v, 64);
                   if (!n.ok()) return n.error();
                   o.http2MaxStreamsPerConnection = *n;
                   return {};
                 }});
    f.push_back({"permit-address-sharing", "", true, "", "", "Secure serving",
                 "If true, SO_REUSEADDR will be used when binding the port. This allows binding to wildcard "
                 "IPs like 0.0.0.0 and specific IPs in parallel, and it avoids waiting for the kernel to "
                 "release sockets in TIME_WAIT state. [default=false]",
                 false, boolFlag(&Options::permitAddressSharing)});
    f.push_back({"permit-port-sharing", "", true, "", "", "Secure serving",
                 "If true, SO_REUSEPORT will be used when binding the port, which allows more than one "
                 "instance to bind on the same address and port. [default=false]",
                 false, boolFlag(&Options::permitPortSharing)});
    f.push_back(
        {"secure-port", "", false, "int", "10259", "Secure serving",
         "The port on which to serve HTTPS with authentication and authorization. If 0, don't serve HTTPS "
         "at all.",
         false, [](Options& o, std::string_view v) -> VoidResult {
           auto n = parseInt(v, INT32_MIN, INT32_MAX, "strconv.ParseInt");
           if (!n.ok()) return n.error();
           if (*n < 0 || *n > 65535) {
             return Error("--secure-port " + std::to_string(*n) +
                          " must be between 0 and 65535, inclusive. "
                          "0 for turning off secure port");
           }
           o.securePort = static_cast<uint16_t>(*n);
           return {};
         }});
    f.push_back(
        {"tls-cert-file", "", false, "string", "", "Secure serving",
         "File containing the default x509 Certificate for HTTPS. (CA cert, if any, concatenated after "
         "server cert). If HTTPS serving is enabled, and --tls-cert-file and --tls-private-key-file are not "
         "provided, a self-signed certificate and key are generated for the public address and saved to "
         "the directory specified by --cert-dir.",
         false, str(&Options::tlsCertFile)});
    f.push_back({"tls-cipher-suites", "", false, "strings", "", "Secure serving",
                 "Comma-separated list of cipher suites for the server. If omitted, the default Go cipher "
                 "suites will be used. \n"
                 "                Preferred values: " +
                     joinNames(server::preferredTlsCipherNames()) +
                     ". \n"
                     "                Insecure values: " +
                     joinNames(server::insecureTlsCipherNames()) + ".",
                 false, [](Options& o, std::string_view v) -> VoidResult {
                   setStringSlice(o, "tls-cipher-suites", o.tlsCipherSuites, v);
                   return {};
                 }});
    f.push_back({"tls-curve-preferences", "", false, "int32Slice", "[]", "Secure serving",
                 "Comma-separated list of numeric Go crypto/tls CurveID values, as the allowed key exchange "
                 "mechanisms for the server. The supported values depend on the Go version used. See "
                 "https://pkg.go.dev/crypto/tls#CurveID for values supported for each Go version. The order "
                 "of the list is ignored, and key exchange mechanisms are chosen by Go from this list using "
                 "an internal preference order. If omitted, the default Go curves will be used.",
                 false, [](Options& o, std::string_view v) -> VoidResult {
                   // pflag's int32Slice: split on ',', each strconv.ParseInt(x, 0, 32); the first use
                   // replaces the default, later ones append.
                   std::vector<int32_t> ids;
                   for (std::string_view id : split(v, ',')) {
                     auto n = parseGoInt(id, 32);
                     if (!n.ok()) return n.error();
                     ids.push_back(static_cast<int32_t>(*n));
                   }
                   if (firstUse(o, "tls-curve-preferences")) o.tlsCurvePreferences.clear();
                   o.tlsCurvePreferences.insert(o.tlsCurvePreferences.end(), ids.begin(), ids.end());
                   return {};
                 }});
    f.push_back({"tls-min-version", "", false, "string", "", "Secure serving",
                 "Minimum TLS version supported. Possible values: " + joinNames(server::tlsPossibleVersions()),
                 false, str(&Options::tlsMinVersion)});
    f.push_back({"tls-private-key-file", "", false, "string", "", "Secure serving",
                 "File containing the default x509 private key matching --tls-cert-file.", false,
                 str(&Options::tlsPrivateKeyFile)});
    f.push_back(
        {"tls-sni-cert-key", "", false, "namedCertKey", "[]", "Secure serving",
         "A pair of x509 certificate and private key file paths, optionally suffixed with a list of "
         "domain patterns which are fully qualified domain names, possibly with prefixed wildcard "
         "segments. The domain patterns also allow IP addresses, but IPs should only be used if the "
         "apiserver has visibility to the IP address requested by a client. If no domain patterns are "
         "provided, the names of the certificate are extracted. Non-wildcard matches trump over "
         "wildcard matches, explicit domain patterns trump over extracted names. For multiple "
         "key/certificate pairs, use the --tls-sni-cert-key multiple times. Examples: "
         "\"example.crt,example.key\" or \"foo.crt,foo.key:*.foo.com,foo.com\".",
         false, [](Options& o, std::string_view v) -> VoidResult {
           auto pair = parseNamedCertKey(v);
           if (!pair.ok()) return pair.error();
           // cliflag.NamedCertKeyArray: the first use replaces the default, later ones append.
           if (firstUse(o, "tls-sni-cert-key")) o.tlsSniCertKeys.clear();
           o.tlsSniCertKeys.push_back(std::move(pair).value());
           return {};
         }});

    // authentication (upstream DelegatingAuthenticationOptions.AddFlags, RemoteKubeConfigFileOptional)
    auto authnDur = [](std::chrono::milliseconds server::auth::DelegatingAuthenticationOptions::*field) {
      return [field](Options& o, std::string_view v) -> VoidResult {
        auto d = parseDuration(v);
        if (!d.ok()) return d.error();
        o.authentication.*field = *d;
        return {};
      };
    };
    auto authnBool = [](bool server::auth::DelegatingAuthenticationOptions::*field) {
      return [field](Options& o, std::string_view v) -> VoidResult {
        auto b = parseBool(v);
        if (!b.ok()) return b.error();
        o.authentication.*field = *b;
        return {};
      };
    };
    auto rhSlice = [](const char* name, std::vector<std::string> server::auth::RequestHeaderOptions::*field) {
      return [name, field](Options& o, std::string_view v) -> VoidResult {
        setStringSlice(o, name, o.authentication.requestHeader.*field, v);
        return {};
      };
    };
    f.push_back({"authentication-kubeconfig", "", false, "string", "", "Authentication",
                 "kubeconfig file pointing at the 'core' kubernetes server with enough rights to create "
                 "tokenreviews.authentication.k8s.io. This is optional. If empty, all token requests are "
                 "considered to be anonymous and no client CA is looked up in the cluster.",
                 false, [](Options& o, std::string_view v) -> VoidResult {
                   o.authentication.remoteKubeconfig = std::string(v);
                   return {};
                 }});
    f.push_back({"authentication-skip-lookup", "", true, "", "", "Authentication",
                 "If false, the authentication-kubeconfig will be used to lookup missing authentication "
                 "configuration from the cluster.",
                 false, authnBool(&server::auth::DelegatingAuthenticationOptions::skipLookup)});
    f.push_back({"authentication-token-webhook-cache-ttl", "", false, "duration", "10s", "Authentication",
                 "The duration to cache responses from the webhook token authenticator.", false,
                 authnDur(&server::auth::DelegatingAuthenticationOptions::cacheTtl)});
    f.push_back({"authentication-tolerate-lookup-failure", "", true, "", "true", "Authentication",
                 "If true, failures to look up missing authentication configuration from the cluster are not "
                 "considered fatal. Note that this can result in authentication that treats all requests as "
                 "anonymous.",
                 false, authnBool(&server::auth::DelegatingAuthenticationOptions::tolerateLookupFailure)});
    f.push_back({"client-ca-file", "", false, "string", "", "Authentication",
                 "If set, any request presenting a client certificate signed by one of the authorities in the "
                 "client-ca-file is authenticated with an identity corresponding to the CommonName of the "
                 "client certificate.",
                 false, [](Options& o, std::string_view v) -> VoidResult {
                   o.authentication.clientCaFile = std::string(v);
                   return {};
                 }});
    f.push_back({"requestheader-allowed-names", "", false, "strings", "", "Authentication",
                 "List of client certificate common names to allow to provide usernames in headers specified "
                 "by --requestheader-username-headers. If empty, any client certificate validated by the "
                 "authorities in --requestheader-client-ca-file is allowed.",
                 false, rhSlice("requestheader-allowed-names", &server::auth::RequestHeaderOptions::allowedNames)});
    f.push_back({"requestheader-client-ca-file", "", false, "string", "", "Authentication",
                 "Root certificate bundle to use to verify client certificates on incoming requests before "
                 "trusting usernames in headers specified by --requestheader-username-headers. WARNING: "
                 "generally do not depend on authorization being already done for incoming requests.",
                 false, [](Options& o, std::string_view v) -> VoidResult {
                   o.authentication.requestHeader.clientCaFile = std::string(v);
                   return {};
                 }});
    f.push_back({"requestheader-extra-headers-prefix", "", false, "strings", "[x-remote-extra-]", "Authentication",
                 "List of request header prefixes to inspect. X-Remote-Extra- is suggested.", false,
                 rhSlice("requestheader-extra-headers-prefix",
                         &server::auth::RequestHeaderOptions::extraHeaderPrefixes)});
    f.push_back({"requestheader-group-headers", "", false, "strings", "[x-remote-group]", "Authentication",
                 "List of request headers to inspect for groups. X-Remote-Group is suggested.", false,
                 rhSlice("requestheader-group-headers", &server::auth::RequestHeaderOptions::groupHeaders)});
    f.push_back({"requestheader-uid-headers", "", false, "strings", "", "Authentication",
                 "List of request headers to inspect for UIDs. X-Remote-Uid is suggested. Requires the "
                 "RemoteRequestHeaderUID feature to be enabled.",
                 false, rhSlice("requestheader-uid-headers", &server::auth::RequestHeaderOptions::uidHeaders)});
    f.push_back({"requestheader-username-headers", "", false, "strings", "[x-remote-user]", "Authentication",
                 "List of request headers to inspect for usernames. X-Remote-User is common.", false,
                 rhSlice("requestheader-username-headers", &server::auth::RequestHeaderOptions::usernameHeaders)});

    // authorization (upstream DelegatingAuthorizationOptions.AddFlags, RemoteKubeConfigFileOptional)
    auto authzDur = [](std::chrono::milliseconds server::auth::DelegatingAuthorizationOptions::*field) {
      return [field](Options& o, std::string_view v) -> VoidResult {
        auto d = parseDuration(v);
        if (!d.ok()) return d.error();
        o.authorization.*field = *d;
        return {};
      };
    };
    f.push_back({"authorization-always-allow-paths", "", false, "strings", "[/healthz,/readyz,/livez]",
                 "Authorization",
                 "A list of HTTP paths to skip during authorization, i.e. these are authorized without "
                 "contacting the 'core' kubernetes server.",
                 false, [](Options& o, std::string_view v) -> VoidResult {
                   setStringSlice(o, "authorization-always-allow-paths", o.authorization.alwaysAllowPaths, v);
                   return {};
                 }});
    f.push_back({"authorization-kubeconfig", "", false, "string", "", "Authorization",
                 "kubeconfig file pointing at the 'core' kubernetes server with enough rights to create "
                 "subjectaccessreviews.authorization.k8s.io. This is optional. If empty, all requests not "
                 "skipped by authorization are forbidden.",
                 false, [](Options& o, std::string_view v) -> VoidResult {
                   o.authorization.remoteKubeconfig = std::string(v);
                   return {};
                 }});
    f.push_back({"authorization-webhook-cache-authorized-ttl", "", false, "duration", "10s", "Authorization",
                 "The duration to cache 'authorized' responses from the webhook authorizer.", false,
                 authzDur(&server::auth::DelegatingAuthorizationOptions::allowCacheTtl)});
    f.push_back({"authorization-webhook-cache-unauthorized-ttl", "", false, "duration", "10s", "Authorization",
                 "The duration to cache 'unauthorized' responses from the webhook authorizer.", false,
                 authzDur(&server::auth::DelegatingAuthorizationOptions::denyCacheTtl)});

    // deprecated
    constexpr const char* kIgnored = " This parameter is ignored if a config file is specified in --config.";
    f.push_back({"contention-profiling", "", true, "", "true", "Deprecated",
                 std::string("DEPRECATED: enable block profiling, if profiling is enabled.") + kIgnored, true,
                 [](Options& o, std::string_view v) -> VoidResult {
                   auto b = parseBool(v);
                   if (!b.ok()) return b.error();
                   o.deprecated.contentionProfiling = *b;
                   return {};
                 }});
    f.push_back({"kubeconfig", "", false, "string", "", "Deprecated",
                 std::string("DEPRECATED: path to kubeconfig file with authorization and master location "
                             "information.") +
                     kIgnored,
                 true, [](Options& o, std::string_view v) -> VoidResult {
                   o.deprecated.kubeconfig = std::string(v);
                   return {};
                 }});
    f.push_back({"kube-api-burst", "", false, "int32", "100", "Deprecated",
                 std::string("DEPRECATED: burst to use while talking with kubernetes apiserver.") + kIgnored,
                 true, [](Options& o, std::string_view v) -> VoidResult {
                   auto n = parseInt(v, INT32_MIN, INT32_MAX, "strconv.ParseInt");
                   if (!n.ok()) return n.error();
                   o.deprecated.kubeApiBurst = static_cast<int32_t>(*n);
                   return {};
                 }});
    f.push_back({"kube-api-content-type", "", false, "string", "application/vnd.kubernetes.protobuf",
                 "Deprecated",
                 std::string("DEPRECATED: content type of requests sent to apiserver.") + kIgnored, true,
                 [](Options& o, std::string_view v) -> VoidResult {
                   o.deprecated.kubeApiContentType = std::string(v);
                   return {};
                 }});
    f.push_back({"kube-api-qps", "", false, "float32", "50", "Deprecated",
                 std::string("DEPRECATED: QPS to use while talking with kubernetes apiserver.") + kIgnored,
                 true, [](Options& o, std::string_view v) -> VoidResult {
                   auto q = parseFloat(v);
                   if (!q.ok()) return q.error();
                   o.deprecated.kubeApiQps = *q;
                   return {};
                 }});

    f.push_back({"pod-max-in-unschedulable-pods-duration", "", false, "duration", "5m0s", "Deprecated",
                 "DEPRECATED: the maximum time a pod can stay in unschedulablePods. If a pod stays in "
                 "unschedulablePods for longer than this value, the pod will be moved from unschedulablePods to "
                 "backoffQ or activeQ. This flag is deprecated and will be removed in a future version.",
                 true, [](Options& o, std::string_view v) -> VoidResult {
                   auto d = parseDuration(v);
                   if (!d.ok()) return d.error();
                   o.deprecated.podMaxInUnschedulablePodsDuration = *d;
                   return {};
                 }});
    f.push_back({"profiling", "", true, "", "true", "Deprecated",
                 std::string("DEPRECATED: enable profiling via web interface host:port/debug/pprof/.") + kIgnored,
                 true, [](Options& o, std::string_view v) -> VoidResult {
                   auto b = parseBool(v);
                   if (!b.ok()) return b.error();
                   o.deprecated.profiling = *b;
                   return {};
                 }});

    // leader election
    f.push_back(
        {"leader-elect", "", true, "", "true", "Leader election",
         "Start a leader election client and gain leadership before executing the main loop. Enable this "
         "when running replicated components for high availability.",
         false, [](Options& o, std::string_view v) -> VoidResult {
           auto b = parseBool(v);
           if (!b.ok()) return b.error();
           o.leaderElection.leaderElect = *b;
           return {};
         }});
    f.push_back(
        {"leader-elect-lease-duration", "", false, "duration", "15s", "Leader election",
         "The duration that non-leader candidates will wait after observing a leadership renewal until "
         "attempting to acquire leadership of a led but unrenewed leader slot. This is effectively the maximum "
         "duration that a leader can be stopped before it is replaced by another candidate. This is only "
         "applicable if leader election is enabled.",
         false, dur(&LeaderElectionFlags::leaseDuration)});
    f.push_back(
        {"leader-elect-renew-deadline", "", false, "duration", "10s", "Leader election",
         "The interval between attempts by the acting master to renew a leadership slot before it stops "
         "leading. This must be less than the lease duration. This is only applicable if leader election is "
         "enabled.",
         false, dur(&LeaderElectionFlags::renewDeadline)});
    f.push_back(
        {"leader-elect-resource-lock", "", false, "string", "leases", "Leader election",
         "The type of resource object that is used for locking during leader election. Supported options "
         "are 'leases'.",
         false, leStr(&LeaderElectionFlags::resourceLock)});
    f.push_back({"leader-elect-resource-name", "", false, "string", "kube-scheduler", "Leader election",
                 "The name of resource object that is used for locking during leader election.", false,
                 leStr(&LeaderElectionFlags::resourceName)});
    f.push_back({"leader-elect-resource-namespace", "", false, "string", "kube-system", "Leader election",
                 "The namespace of resource object that is used for locking during leader election.", false,
                 leStr(&LeaderElectionFlags::resourceNamespace)});
    f.push_back({"leader-elect-retry-period", "", false, "duration", "2s", "Leader election",
                 "The duration the clients should wait between attempting acquisition and renewal of a "
                 "leadership. This is only applicable if leader election is enabled.",
                 false, dur(&LeaderElectionFlags::retryPeriod)});

    // feature gate
    f.push_back({"emulated-version", "", false, "strings", "", "Feature gate",
                 "The versions different components emulate their capabilities (APIs, features, ...) of.\n"
                 "If set, the component will emulate the behavior of this version instead of the underlying "
                 "binary version.\n"
                 "Version format could only be major.minor, for example: "
                 "'--emulated-version=wardle=1.2,kube=1.31'.\n"
                 "Options are: kube=1.34..1.37(default:1.37)\n"
                 "If the component is not specified, defaults to \"kube\"",
                 false, [](Options& o, std::string_view v) -> VoidResult {
                   setStringSlice(o, "emulated-version", o.emulatedVersion, v);
                   return {};
                 }});
    f.push_back({"feature-gates", "", false, "colonSeparatedMultimapStringString", "", "Feature gate",
                 featureGatesHelp(), false, [](Options& o, std::string_view v) -> VoidResult {
                   o.featureGatesFlags.emplace_back(v);
                   return {};
                 }});
    f.push_back({"min-compatibility-version", "", false, "strings", "", "Feature gate",
                 "The min version of control plane components the server should be compatible with.\n"
                 "Must be less or equal to the emulated-version. Version format could only be major.minor, for "
                 "example: '--min-compatibility-version=wardle=1.2,kube=1.31'.\n"
                 "Options are: kube=1.34..1.37(default:1.36)\n"
                 "If the component is not specified, defaults to \"kube\"",
                 false, [](Options& o, std::string_view v) -> VoidResult {
                   setStringSlice(o, "min-compatibility-version", o.minCompatibilityVersion, v);
                   return {};
                 }});

    // metrics (component-base metrics.Options.AddFlags)
    f.push_back({"allow-metric-labels", "", false, "stringToString", "[]", "Metrics",
                 "The map from metric-label to value allow-list of this label. The key's format is "
                 "<MetricName>,<LabelName>. The value's format is <allowed_value>,<allowed_value>...e.g. "
                 "metric1,label1='v1,v2,v3', metric1,label2='v1,v2,v3' metric2,label1='v1,v2,v3'.",
                 false, [](Options& o, std::string_view v) -> VoidResult {
                   auto pairs = parseStringToString(v);
                   if (!pairs.ok()) return pairs.error();
                   if (!o.metrics.allowListMapping) o.metrics.allowListMapping.emplace();
                   for (auto& [k, val] : *pairs) (*o.metrics.allowListMapping)[k] = val;
                   return {};
                 }});
    f.push_back({"allow-metric-labels-manifest", "", false, "string", "", "Metrics",
                 "The path to the manifest file that contains the allow-list mapping. The format of the file "
                 "is the same as the flag --allow-metric-labels, i.e., \nallowListMapping:\n  "
                 "\"metric1,label1\": \"value11,value12\"\n  \"metric2,label2\": \"\"\nNote that the flag "
                 "--allow-metric-labels will override the manifest file.",
                 false, [](Options& o, std::string_view v) -> VoidResult {
                   o.metrics.allowListMappingManifest = std::string(v);
                   return {};
                 }});
    f.push_back({"disabled-metrics", "", false, "strings", "", "Metrics",
                 "This flag provides an escape hatch for misbehaving metrics. You must provide the fully "
                 "qualified metric name in order to disable it. Disclaimer: disabling metrics is higher in "
                 "precedence than showing hidden metrics.",
                 false, [](Options& o, std::string_view v) -> VoidResult {
                   // pflag StringSlice: comma-separated; repeating the flag appends.
                   std::stringstream in{std::string(v)};
                   for (std::string name; std::getline(in, name, ',');) o.metrics.disabledMetrics.push_back(name);
                   return {};
                 }});
    f.push_back({"show-hidden-metrics-for-version", "", false, "string", "", "Metrics",
                 "The previous version for which you want to show hidden metrics. Only the previous minor "
                 "version is meaningful, other values will not be allowed. The format is <major>.<minor>, "
                 "e.g.: '1.16'. The purpose of this format is make sure you have the opportunity to notice if "
                 "the next release hides additional metrics, rather than being surprised when they are "
                 "permanently removed in the release after that.",
                 false, [](Options& o, std::string_view v) -> VoidResult {
                   o.metrics.showHiddenMetricsForVersion = std::string(v);
                   return {};
                 }});

    // logs
    f.push_back({"log-flush-frequency", "", false, "duration", "5s", "Logs",
                 "Maximum number of seconds between log flushes", false,
                 [](Options& o, std::string_view v) -> VoidResult {
                   auto d = parseGoDuration(v);
                   if (!d.ok()) return d.error();
                   o.logging.flushFrequency = *d;
                   return {};
                 }});
    auto quantity = [](uint64_t LoggingOptions::*field, std::string LoggingOptions::*text) {
      return [field, text](Options& o, std::string_view v) -> VoidResult {
        auto q = parseQuantity(v);
        if (!q.ok()) return q.error();
        o.logging.*field = *q;
        o.logging.*text = api::Quantity::parse(v)->toString();
        return {};
      };
    };
    auto boolean = [](bool LoggingOptions::*field) {
      return [field](Options& o, std::string_view v) -> VoidResult {
        auto b = parseBool(v);
        if (!b.ok()) return b.error();
        o.logging.*field = *b;
        return {};
      };
    };
    constexpr const char* kBuffer =
        "The default value of zero bytes disables buffering. The size can be specified as number of bytes "
        "(512), multiples of 1000 (1K), multiples of 1024 (2Ki), or powers of those (3M, 4G, 5Mi, 6Gi). "
        "Enable the LoggingAlphaOptions feature gate to use this.";
    f.push_back({"log-json-info-buffer-size", "", false, "quantity", "", "Logs",
                 std::string("[Alpha] In JSON format with split output streams, the info messages can be "
                             "buffered for a while to increase performance. ") +
                     kBuffer,
                 false,
                 quantity(&LoggingOptions::jsonInfoBufferSize, &LoggingOptions::jsonInfoBufferSizeText)});
    f.push_back({"log-json-split-stream", "", true, "", "", "Logs",
                 "[Alpha] In JSON format, write error messages to stderr and info messages to stdout. The "
                 "default is to write a single stream to stdout. Enable the LoggingAlphaOptions feature gate "
                 "to use this.",
                 false, boolean(&LoggingOptions::jsonSplitStream)});
    f.push_back({"log-text-info-buffer-size", "", false, "quantity", "", "Logs",
                 std::string("[Alpha] In text format with split output streams, the info messages can be "
                             "buffered for a while to increase performance. ") +
                     kBuffer,
                 false,
                 quantity(&LoggingOptions::textInfoBufferSize, &LoggingOptions::textInfoBufferSizeText)});
    f.push_back({"log-text-split-stream", "", true, "", "", "Logs",
                 "[Alpha] In text format, write error messages to stderr and info messages to stdout. The "
                 "default is to write a single stream to stdout. Enable the LoggingAlphaOptions feature gate "
                 "to use this.",
                 false, boolean(&LoggingOptions::textSplitStream)});
    f.push_back({"logging-format", "", false, "string", "text", "Logs",
                 "Sets the log format. Permitted formats: \"json\" (gated by LoggingBetaOptions), \"text\".",
                 false, [](Options& o, std::string_view v) -> VoidResult {
                   o.logging.format = std::string(v);
                   return {};
                 }});
    f.push_back({"v", "v", false, "Level", "", "Logs", "number for the log level verbosity", false,
                 [](Options& o, std::string_view v) -> VoidResult {
                   auto n = parseInt(v, 0, INT32_MAX, "strconv.ParseInt");
                   if (!n.ok()) return n.error();
                   o.verbosity = static_cast<int>(*n);
                   o.logging.verbosity = o.verbosity;
                   return {};
                 }});
    f.push_back({"vmodule", "", false, "pattern=N,...", "", "Logs",
                 "comma-separated list of pattern=N settings for file-filtered logging (only works for text "
                 "log format)",
                 false, [](Options& o, std::string_view v) -> VoidResult {
                   auto m = parseVModule(v);
                   if (!m.ok()) return m.error();
                   o.logging.vmodule.insert(o.logging.vmodule.end(), m->begin(), m->end());
                   return {};
                 }});

    // generic
    f.push_back({"help", "h", true, "", "", "Other", "help for kube-scheduler-cpp", false,
                 [](Options& o, std::string_view v) -> VoidResult {
                   auto b = parseBool(v);
                   if (!b.ok()) return b.error();
                   o.help = *b;
                   return {};
                 }});
    f.push_back({"version", "", true, "", "", "Other", "Print version information and quit", false,
                 [](Options& o, std::string_view v) -> VoidResult {
                   auto b = parseBool(v);
                   if (!b.ok()) return b.error();
                   o.version = *b;
                   return {};
                 }});
    return f;
  }();
  return kFlags;
}

// ---- /flagz: each flag's current value as its pflag Value's String() prints it ----

// pflag's writeAsCSV (encoding/csv, one record, the trailing newline dropped).
std::string csvRecord(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    const std::string& f = fields[i];
    const bool quote =
        !f.empty() && (f == "\\." || f.find_first_of(",\"\r\n") != std::string::npos ||
                       std::string_view(" \t\n\v\f\r").find(f.front()) != std::string_view::npos);
    if (!quote) {
      out += f;
      continue;
    }
    out += '"';
    for (char c : f) {
      if (c == '"') out += '"';
      out += c;
    }
    out += '"';
  }
  return out;
}

// pflag stringSlice / stringToString: "[" + CSV + "]".
std::string bracketed(const std::vector<std::string>& fields) {
  return "[" + csvRecord(fields) + "]";
}

std::string boolText(bool b) {
  return b ? "true" : "false";
}

std::string durationText(std::chrono::milliseconds d) {
  return formatGoDuration(d);
}

// strconv.FormatFloat(float64(f), 'g', -1, 32): the float32's shortest digits, read back as a double, have
// that same shortest form, which FormatFloat(..., 64) prints.
std::string float32Text(float f) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f);
  if (ec != std::errc()) return std::to_string(f);
  return metrics::formatValue(std::strtod(std::string(buf, end).c_str(), nullptr));
}

// net.IP.String(): canonical IPv6, IPv4-mapped addresses as IPv4.
std::string ipText(const std::string& s) {
  unsigned char buf[sizeof(struct in6_addr)];
  char out[INET6_ADDRSTRLEN];
  if (inet_pton(AF_INET, s.c_str(), buf) == 1) return inet_ntop(AF_INET, buf, out, sizeof out) ? out : s;
  if (inet_pton(AF_INET6, s.c_str(), buf) != 1) return s;
  static constexpr unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::equal(kMapped, kMapped + 12, buf)) return inet_ntop(AF_INET, buf + 12, out, sizeof out) ? out : s;
  return inet_ntop(AF_INET6, buf, out, sizeof out) ? out : s;
}

// cliflag.ColonSeparatedMultimapStringString (default empty key allowed): "key:value" pairs, stable-sorted
// by key, values in the order given.
std::string featureGatesText(const std::vector<std::string>& values) {
  std::vector<std::pair<std::string, std::string>> kvs;
  for (const auto& value : values) {
    for (const auto& pair : split(value, ',')) {
      if (pair.empty()) continue;
      const size_t colon = pair.find(':');
      if (colon == std::string_view::npos) {
        kvs.emplace_back("", std::string(trim(pair)));
      } else {
        kvs.emplace_back(std::string(trim(pair.substr(0, colon))), std::string(trim(pair.substr(colon + 1))));
      }
    }
  }
  std::stable_sort(kvs.begin(), kvs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& [k, v] : kvs) out += (out.empty() ? "" : ",") + k + ":" + v;
  return out;
}

using FlagGetter = std::function<std::string(const Options&)>;

const std::map<std::string, FlagGetter, std::less<>>& flagGetters() {
  static const std::map<std::string, FlagGetter, std::less<>> kGetters = [] {
    std::map<std::string, FlagGetter, std::less<>> g;
    auto str = [](std::string Options::*field) { return [field](const Options& o) { return o.*field; }; };
    auto optional = [](auto get, std::string fallback) {
      return [get, fallback](const Options& o) -> std::string {
        const auto& v = get(o);
        if (!v) return fallback;
        using T = std::decay_t<decltype(*v)>;
        if constexpr (std::is_same_v<T, bool>)
          return boolText(*v);
        else if constexpr (std::is_same_v<T, std::chrono::milliseconds>)
          return durationText(*v);
        else if constexpr (std::is_same_v<T, float>)
          return float32Text(*v);
        else if constexpr (std::is_same_v<T, std::string>)
          return *v;
        else
          return std::to_string(*v);
      };
    };
    g["config"] = str(&Options::configFile);
    g["master"] = str(&Options::master);
    g["write-config-to"] = str(&Options::writeConfigTo);
    g["bind-address"] = [](const Options& o) { return ipText(o.bindAddress); };
    g["secure-port"] = [](const Options& o) { return std::to_string(o.securePort); };
    g["tls-cert-file"] = str(&Options::tlsCertFile);
    g["tls-cipher-suites"] = [](const Options& o) { return bracketed(o.tlsCipherSuites); };
    g["tls-min-version"] = str(&Options::tlsMinVersion);
    g["tls-private-key-file"] = str(&Options::tlsPrivateKeyFile);
    g["cert-dir"] = str(&Options::certDir);
    g["disable-http2-serving"] = [](const Options& o) { return boolText(o.disableHttp2Serving); };
    g["http2-max-streams-per-connection"] = [](const Options& o) {
      return std::to_string(o.http2MaxStreamsPerConnection);
    };
    g["permit-address-sharing"] = [](const Options& o) { return boolText(o.permitAddressSharing); };
    g["permit-port-sharing"] = [](const Options& o) { return boolText(o.permitPortSharing); };
    g["tls-curve-preferences"] = [](const Options& o) {
      std::vector<std::string> ids;
      for (int32_t id : o.tlsCurvePreferences) ids.push_back(std::to_string(id));
      return "[" + join(ids, ",") + "]";
    };
    g["tls-sni-cert-key"] = [](const Options& o) {
      // cliflag.NamedCertKeyArray.String: "[crt,key:name,name;crt,key]".
      std::vector<std::string> pairs;
      for (const auto& p : o.tlsSniCertKeys) {
        pairs.push_back(p.certFile + "," + p.keyFile + (p.names.empty() ? "" : ":" + join(p.names, ",")));
      }
      return "[" + join(pairs, ";") + "]";
    };
    g["authentication-kubeconfig"] = [](const Options& o) { return o.authentication.remoteKubeconfig; };
    g["authentication-skip-lookup"] = [](const Options& o) { return boolText(o.authentication.skipLookup); };
    g["authentication-token-webhook-cache-ttl"] = [](const Options& o) {
      return durationText(o.authentication.cacheTtl);
    };
    g["authentication-tolerate-lookup-failure"] = [](const Options& o) {
      return boolText(o.authentication.tolerateLookupFailure);
    };
    g["client-ca-file"] = [](const Options& o) { return o.authentication.clientCaFile; };
    g["requestheader-allowed-names"] = [](const Options& o) {
      return bracketed(o.authentication.requestHeader.allowedNames);
    };
    g["requestheader-client-ca-file"] = [](const Options& o) {
      return o.authentication.requestHeader.clientCaFile;
    };
    g["requestheader-extra-headers-prefix"] = [](const Options& o) {
      return bracketed(o.authentication.requestHeader.extraHeaderPrefixes);
    };
    g["requestheader-group-headers"] = [](const Options& o) {
      return bracketed(o.authentication.requestHeader.groupHeaders);
    };
    g["requestheader-uid-headers"] = [](const Options& o) {
      return bracketed(o.authentication.requestHeader.uidHeaders);
    };
    g["requestheader-username-headers"] = [](const Options& o) {
      return bracketed(o.authentication.requestHeader.usernameHeaders);
    };
    g["authorization-always-allow-paths"] = [](const Options& o) {
      return bracketed(o.authorization.alwaysAllowPaths);
    };
    g["authorization-kubeconfig"] = [](const Options& o) { return o.authorization.remoteKubeconfig; };
    g["authorization-webhook-cache-authorized-ttl"] = [](const Options& o) {
      return durationText(o.authorization.allowCacheTtl);
    };
    g["authorization-webhook-cache-unauthorized-ttl"] = [](const Options& o) {
      return durationText(o.authorization.denyCacheTtl);
    };
    // Deprecated flags: upstream binds them to the defaulted configuration, so an unset one shows its
    // default.
    g["contention-profiling"] =
        optional([](const Options& o) { return o.deprecated.contentionProfiling; }, "true");
    g["kubeconfig"] = optional([](const Options& o) { return o.deprecated.kubeconfig; }, "");
    g["kube-api-burst"] = optional([](const Options& o) { return o.deprecated.kubeApiBurst; }, "100");
    g["kube-api-content-type"] = optional([](const Options& o) { return o.deprecated.kubeApiContentType; },
                                          "application/vnd.kubernetes.protobuf");
    g["kube-api-qps"] = optional([](const Options& o) { return o.deprecated.kubeApiQps; }, "50");
    g["pod-max-in-unschedulable-pods-duration"] = [](const Options& o) {
      return durationText(o.deprecated.podMaxInUnschedulablePodsDuration);
    };
    g["profiling"] = optional([](const Options& o) { return o.deprecated.profiling; }, "true");
    g["leader-elect"] = optional([](const Options& o) { return o.leaderElection.leaderElect; }, "true");
    g["leader-elect-lease-duration"] =
        optional([](const Options& o) { return o.leaderElection.leaseDuration; }, "15s");
    g["leader-elect-renew-deadline"] =
        optional([](const Options& o) { return o.leaderElection.renewDeadline; }, "10s");
    g["leader-elect-resource-lock"] =
        optional([](const Options& o) { return o.leaderElection.resourceLock; }, "leases");
    g["leader-elect-resource-name"] =
        optional([](const Options& o) { return o.leaderElection.resourceName; }, "kube-scheduler");
    g["leader-elect-resource-namespace"] =
        optional([](const Options& o) { return o.leaderElection.resourceNamespace; }, "kube-system");
    g["leader-elect-retry-period"] =
        optional([](const Options& o) { return o.leaderElection.retryPeriod; }, "2s");
    g["emulated-version"] = [](const Options& o) { return bracketed(o.emulatedVersion); };
    g["min-compatibility-version"] = [](const Options& o) { return bracketed(o.minCompatibilityVersion); };
    g["feature-gates"] = [](const Options& o) { return featureGatesText(o.featureGatesFlags); };
    g["allow-metric-labels"] = [](const Options& o) {
      std::vector<std::string> records;
      if (o.metrics.allowListMapping) {
        for (const auto& [k, v] : *o.metrics.allowListMapping) records.push_back(k + "=" + v);
      }
      return bracketed(records);
    };
    g["allow-metric-labels-manifest"] = [](const Options& o) { return o.metrics.allowListMappingManifest; };
    g["disabled-metrics"] = [](const Options& o) { return bracketed(o.metrics.disabledMetrics); };
    g["show-hidden-metrics-for-version"] = [](const Options& o) {
      return o.metrics.showHiddenMetricsForVersion;
    };
    g["log-flush-frequency"] = [](const Options& o) { return formatGoDuration(o.logging.flushFrequency); };
    g["log-json-info-buffer-size"] = [](const Options& o) { return o.logging.jsonInfoBufferSizeText; };
    g["log-json-split-stream"] = [](const Options& o) { return boolText(o.logging.jsonSplitStream); };
    g["log-text-info-buffer-size"] = [](const Options& o) { return o.logging.textInfoBufferSizeText; };
    g["log-text-split-stream"] = [](const Options& o) { return boolText(o.logging.textSplitStream); };
    g["logging-format"] = [](const Options& o) { return o.logging.format; };
    g["v"] = [](const Options& o) { return std::to_string(o.verbosity); };
    g["vmodule"] = [](const Options& o) {
      std::string out;
      for (const auto& e : o.logging.vmodule)
        out += (out.empty() ? "" : ",") + e.pattern + "=" + std::to_string(e.level);
      return out;
    };
    g["help"] = [](const Options& o) { return boolText(o.help); };
    g["version"] = [](const Options& o) { return boolText(o.version); };
    return g;
  }();
  return kGetters;
}

const Flag* findFlag(std::string_view name) {
  for (const auto& f : flags()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const Flag* findShorthand(char c) {
  for (const auto& f : flags()) {
    if (f.shorthand.size() == 1 && f.shorthand[0] == c) return &f;
  }
  return nullptr;
}

Error invalidArgument(std::string_view value, const Flag& flag, const Error& why) {
  std::string name = flag.shorthand.empty() ? "--" + flag.name : "-" + flag.shorthand + ", --" + flag.name;
  return Error("invalid argument \"" + std::string(value) + "\" for \"" + name + "\" flag: " + why.message());
}

}  // namespace

std::vector<FeatureGateState> featureGateStates(const features::FeatureGate& gates) {
  std::vector<FeatureGateState> states;
  for (const features::FeatureSpec& spec : features::knownFeatures()) {
    // upstream AddMetrics: every gate known at the emulated version, with its stage there.
    const features::FeatureSpec* at = gates.spec(spec.name);
    if (at->stage == features::Stage::PreAlpha) continue;
    states.push_back({std::string(spec.name), std::string(features::stageText(at->stage)), gates.enabled(spec.name)});
  }
  return states;
}

std::map<std::string, std::string> flagzValues(const Options& options) {
  std::map<std::string, std::string> values;
  for (const auto& f : flags()) {
    auto it = flagGetters().find(f.name);
    values[f.name] = it == flagGetters().end() ? "" : it->second(options);
  }
  return values;
}

std::vector<std::string> flagsWithoutFlagzValueForTest() {
  std::vector<std::string> missing;
  for (const auto& f : flags()) {
    if (flagGetters().count(f.name) == 0) missing.push_back(f.name);
  }
  return missing;
}

Result<Options> parseFlags(const std::vector<std::string>& args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      if (i + 1 < args.size()) return Error("arguments are not supported: \"" + args[i + 1] + "\"");
      break;
    }
    const Flag* flag = nullptr;
    std::string shown;
    std::optional<std::string> value;
    if (arg.rfind("--", 0) == 0) {
      std::string body = arg.substr(2);
      size_t eq = body.find('=');
      std::string name = eq == std::string::npos ? body : body.substr(0, eq);
      if (eq != std::string::npos) value = body.substr(eq + 1);
      flag = findFlag(name);
      if (flag == nullptr) return Error("unknown flag: --" + name);
      shown = "--" + name;
    } else if (arg.size() >= 2 && arg[0] == '-') {
      // pflag shorthand: -v 4, -v=4, -v4, -h
      flag = findShorthand(arg[1]);
      if (flag == nullptr) return Error("unknown shorthand flag: '" + std::string(1, arg[1]) + "' in " + arg);
      shown = "-" + std::string(1, arg[1]);
      if (arg.size() > 2) value = arg[2] == '=' ? arg.substr(3) : arg.substr(2);
    } else {
      return Error("arguments are not supported: \"" + arg + "\"");
    }
    if (!value) {
      if (flag->isBool) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return Error("flag needs an argument: " + shown);
      }
    }
    if (auto r = flag->set(o, *value); !r.ok()) return invalidArgument(*value, *flag, r.error());
    if (flag->deprecated) o.deprecatedFlagsSet.push_back("--" + flag->name);
    o.flagsSet.push_back(flag->name);
  }
  if (o.tlsCertFile.empty() != o.tlsPrivateKeyFile.empty()) {
    return Error("--tls-cert-file and --tls-private-key-file must be given together");
  }
  // Checked where upstream's SecureServingOptions.ApplyTo and the Validate functions check them.
  if (auto v = server::tlsVersion(o.tlsMinVersion); !v.ok()) return v.error();
  if (auto c = server::tlsCipherList(o.tlsCipherSuites); !c.ok()) return c.error();
  if (auto c = server::tlsCurveGroups(o.tlsCurvePreferences); !c.ok()) return c.error();
  if (auto a = server::auth::validateAuthentication(o.authentication); !a.ok()) return a.error();
  // component-base metrics Options.Validate (after the serving and authentication options, as upstream),
  // against the binary's version: all its errors at once.
  if (auto errs = metrics::validateMetricsConfiguration(o.metrics, kUpstreamMajor, kUpstreamMinor, "metrics");
      !errs.empty()) {
    return Error(api::aggregateFieldErrors(errs));
  }
  // upstream Options.Complete / Validate: the registry's emulated version and gates, then logging.
  if (auto r = features::applyEmulatedVersion(o.emulatedVersion, o.featureGates); !r.ok()) return r.error();
  if (auto r = features::applyMinCompatibilityVersion(o.minCompatibilityVersion, o.featureGates); !r.ok()) {
    return r.error();
  }
  if (auto r = features::applyFeatureGatesFlags(o.featureGatesFlags, o.featureGates, &o.featureGateWarnings);
      !r.ok()) {
    return r.error();
  }
  if (auto r = o.featureGates.validateDependencies(); !r.ok()) return r.error();
  if (auto r = validateLogging(o.logging, o.featureGates); !r.ok()) return r.error();
  auto sf = features::schedulerFeatures(o.featureGates);
  if (!sf.ok()) return sf.error();
  o.schedulerFeatures = std::move(sf).value();
  return o;
}

Result<config::KubeSchedulerConfiguration> buildConfig(const Options& options,
                                                       std::vector<std::string>* warnings) {
  config::DecodeOptions decode;
  decode.features = options.schedulerFeatures.config;
  decode.validate = false;  // validated below, after the flags are applied (as upstream)
  config::KubeSchedulerConfiguration cfg;
  if (options.configFile.empty()) {
    auto defaulted = config::decodeConfig(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n", decode);
    if (!defaulted.ok()) return defaulted.error();
    cfg = std::move(defaulted).value();
    const DeprecatedFlags& d = options.deprecated;
    if (d.kubeconfig) cfg.clientConnection.kubeconfig = *d.kubeconfig;
    if (d.kubeApiQps) cfg.clientConnection.qps = *d.kubeApiQps;
    if (d.kubeApiBurst) cfg.clientConnection.burst = *d.kubeApiBurst;
    if (d.kubeApiContentType) cfg.clientConnection.contentType = *d.kubeApiContentType;
    if (d.profiling) cfg.debugging.enableProfiling = *d.profiling;
    if (d.contentionProfiling) cfg.debugging.enableContentionProfiling = *d.contentionProfiling;
  } else {
    auto loaded = config::loadConfigFile(options.configFile, decode);
    if (!loaded.ok()) return loaded.error();
    cfg = std::move(loaded).value();
    if (warnings != nullptr) {
      for (const auto& name : options.deprecatedFlagsSet) {
        if (name == "--pod-max-in-unschedulable-pods-duration") continue;  // not a config file field
        warnings->push_back("flag " + name +
                            " is deprecated and ignored when --config is set; set it in the "
                            "configuration file instead");
      }
    }
  }
  // Upstream ApplyLeaderElectionTo: honoured with and without --config.
  const LeaderElectionFlags& le = options.leaderElection;
  if (le.leaderElect) cfg.leaderElection.leaderElect = *le.leaderElect;
  if (le.leaseDuration) cfg.leaderElection.leaseDuration = *le.leaseDuration;
  if (le.renewDeadline) cfg.leaderElection.renewDeadline = *le.renewDeadline;
  if (le.retryPeriod) cfg.leaderElection.retryPeriod = *le.retryPeriod;
  if (le.resourceLock) cfg.leaderElection.resourceLock = *le.resourceLock;
  if (le.resourceName) cfg.leaderElection.resourceName = *le.resourceName;
  if (le.resourceNamespace) cfg.leaderElection.resourceNamespace = *le.resourceNamespace;

  if (auto v = config::validateConfig(cfg, options.schedulerFeatures.config); !v.ok()) return v.error();
  return cfg;
}

std::string usage() {
  std::string out =
      "kube-scheduler-cpp: a Kubernetes scheduler, compatible with kube-scheduler's "
      "KubeSchedulerConfiguration\n"
      "profiles, flags, metrics and endpoints. Runs as a (secondary) scheduler against a cluster.\n\n"
      "Usage:\n"
      "  kube-scheduler-cpp [flags]\n"
      "  kube-scheduler-cpp simulate --config CONFIG.yaml --cluster CLUSTER.yaml [--explain] [-o "
      "json|table]\n"
      "      Schedule the pending pods of a cluster file (as `kubectl get nodes,pods -A -o yaml` prints it)\n"
      "      with the real scheduler over an in-memory API server, and print where each pod goes and why.\n";
  std::string section;
  for (const auto& f : flags()) {
    if (f.section != section) {
      section = f.section;
      out += "\n" + section + " flags:\n\n";
    }
    std::string head = f.shorthand.empty() ? "      --" + f.name : "  -" + f.shorthand + ", --" + f.name;
    if (!f.valueType.empty()) head += " " + f.valueType;
    std::string help = f.help;
    for (size_t p = help.find('\n'); p != std::string::npos; p = help.find('\n', p + 17)) {
      help.replace(p, 1, "\n                ");
    }
    out += head + "\n                " + help;
    if (!f.defaultText.empty()) {
      out += " (default " + (f.valueType == "string" ? "\"" + f.defaultText + "\"" : f.defaultText) + ")";
    }
    out += "\n";
  }
  return out;
}

}  // namespace ks::app
