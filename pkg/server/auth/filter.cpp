#include "pkg/server/auth/filter.h"

#include <cctype>
#include <cstdio>

#include <spdlog/spdlog.h>

#include "pkg/api/field.h"
#include "pkg/util/strings.h"

namespace ks::server::auth {
namespace {

// responsewriters' sanitizer.
std::string sanitize(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Go's %q for the URIs we serve (printable ASCII, escapes otherwise).
std::string goQuote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (u < 0x20 || u >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", u);
      out += buf;
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

// negotiation's isPrettyPrint: ?pretty=<bool>, else User-Agent curl / Wget / Mozilla/5.0.
bool prettyPrint(const Request& req) {
  if (req.hasQuery("pretty")) {
    const std::string v = req.queryValues("pretty").front();
    if (!v.empty()) return v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True";
  }
  for (const auto& [k, v] : req.headers) {
    if (k == "user-agent") {
      return v.rfind("curl", 0) == 0 || v.rfind("Wget", 0) == 0 || v.rfind("Mozilla/5.0", 0) == 0;
    }
  }
  return false;
}

// A metav1.Status as kube-apiserver encodes it: compact JSON and a newline, or (pretty) indented by two
// spaces without one.
Response statusResponse(const Request& req, int code, std::string_view reason, const std::string& message,
                        bool details) {
  const std::vector<std::pair<std::string, std::string>> fields = {
      {"kind", "\"Status\""},       {"apiVersion", "\"v1\""},         {"metadata", "{}"},
      {"status", "\"Failure\""},    {"message", api::field::jsonValue(message)}, {"reason", api::field::jsonValue(reason)},
      {"details", details ? "{}" : ""}, {"code", std::to_string(code)}};
  const bool pretty = prettyPrint(req);
  std::string body = pretty ? "{\n" : "{";
  bool first = true;
  for (const auto& [k, v] : fields) {
    if (v.empty()) continue;
    if (!first) body += pretty ? ",\n" : ",";
    first = false;
    body += (pretty ? "  \"" : "\"") + k + (pretty ? "\": " : "\":") + v;
  }
  body += pretty ? "\n}" : "}\n";
  Response r;
  r.status = code;
  r.contentType = "application/json";
  r.body = std::move(body);
  return r;
}

}  // namespace

Response unauthorizedResponse(const Request& req) {
  return statusResponse(req, 401, "Unauthorized", "Unauthorized", false);
}

Response forbiddenResponse(const Request& req, const Attributes& attrs, const std::string& reason) {
  std::string msg = sanitize("User " + goQuote(attrs.user.name) + " cannot " + attrs.verb + " path " + goQuote(attrs.path));
  if (!reason.empty()) msg += ": " + reason;
  Response r = statusResponse(req, 403, "Forbidden", "forbidden: " + msg, true);
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  return r;
}

Filter newAuthFilter(std::shared_ptr<Authenticator> authenticator, std::shared_ptr<Authorizer> authorizer) {
  return [authn = std::move(authenticator), authz = std::move(authorizer)](const Request& req) -> std::optional<Response> {
    AuthnResult who = authn->authenticate(req);
    if (who.error || !who.ok) {
      if (who.error) spdlog::error("Unable to authenticate the request: {}", *who.error);
      return unauthorizedResponse(req);
    }
    Attributes attrs{std::move(who.user), asciiLower(req.method), req.path};
    AuthzResult decision = authz->authorize(attrs);
    if (decision.decision == Decision::Allow) return std::nullopt;
    const std::string uri = req.path + (req.rawQuery.empty() ? "" : "?" + req.rawQuery);
    if (decision.error) {
      spdlog::error("{}", *decision.error);
      return Response::error(500, sanitize("Internal Server Error: " + goQuote(uri) + ": " + *decision.error));
    }
    spdlog::trace("\"Forbidden\" URI=\"{}\" reason=\"{}\"", uri, decision.reason);
    return forbiddenResponse(req, attrs, decision.reason);
  };
}

}  // namespace ks::server::auth
