#include "pkg/server/auth/authenticators.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <future>
#include <mutex>
#include <unordered_map>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "pkg/util/strings.h"

namespace ks::server::auth {
namespace {

using json = nlohmann::json;

// http.Header.Get: the first value of `name` (case-insensitive).
const std::string* firstHeader(const Request& req, std::string_view name) {
  const std::string key = asciiLower(name);
  for (const auto& [k, v] : req.headers) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string headerValue(const Request& req, const std::vector<std::string>& names) {
  for (const auto& n : names) {
    if (const std::string* v = firstHeader(req, n); v != nullptr && !v->empty()) return *v;
  }
  return "";
}

std::vector<std::string> allHeaderValues(const Request& req, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& n : names) {
    const std::string key = asciiLower(n);
    for (const auto& [k, v] : req.headers) {
      if (k == key && !v.empty()) out.push_back(v);
    }
  }
  return out;
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// url.PathUnescape, falling back to the input when malformed (as unescapeExtraKey).
std::string unescapeExtraKey(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    if (i + 2 >= s.size()) return s;
    int hi = hexValue(s[i + 1]);
    int lo = hexValue(s[i + 2]);
    if (hi < 0 || lo < 0) return s;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

std::map<std::string, std::vector<std::string>> newExtra(const Request& req,
                                                         const std::vector<std::string>& prefixes) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& prefix : prefixes) {
    const std::string p = asciiLower(prefix);
    for (const auto& [k, v] : req.headers) {
      if (k.size() < p.size() || k.compare(0, p.size(), p) != 0) continue;
      out[unescapeExtraKey(k.substr(p.size()))].push_back(v);
    }
  }
  return out;
}

class X509Authenticator final : public Authenticator {
 public:
  explicit X509Authenticator(std::shared_ptr<const DynamicCA> ca) : ca_(std::move(ca)) {}

  AuthnResult authenticate(const Request& req) override {
    if (req.peerCertificates.empty()) return AuthnResult::noOpinion();
    std::shared_ptr<const CABundle> ca = ca_->get();
    if (!ca) return AuthnResult::noOpinion();
    auto info = parseCertificate(req.peerCertificates.front());
    if (!info.ok()) return AuthnResult::failed(info.error().message());
    if (auto v = ca->verify(req.peerCertificates); !v.ok()) {
      return AuthnResult::failed("verifying certificate SN=" + info->serialNumber + ", CN=" + info->commonName +
                                 " failed: " + v.error().message());
    }
    if (info->commonName.empty()) return AuthnResult::noOpinion();
    UserInfo u;
    u.name = info->commonName;
    u.groups = info->organizations;
    u.extra[kCredentialIdKey] = {"X509SHA256=" + info->sha256Hex};
    return AuthnResult::authenticated(std::move(u));
  }

 private:
  std::shared_ptr<const DynamicCA> ca_;
};

class RequestHeaderAuthenticator final : public Authenticator {
 public:
  explicit RequestHeaderAuthenticator(std::shared_ptr<const Dynamic<RequestHeaderBundle>> rh) : rh_(std::move(rh)) {}

  AuthnResult authenticate(const Request& req) override {
    if (req.peerCertificates.empty()) return AuthnResult::noOpinion();
    std::shared_ptr<const RequestHeaderBundle> rh = rh_->get();
    if (!rh || !rh->ca) return AuthnResult::noOpinion();
    if (auto v = rh->ca->verify(req.peerCertificates); !v.ok()) return AuthnResult::failed(v.error().message());
    const RequestHeaderSettings& s = rh->settings;
    if (!s.allowedNames.empty()) {
      auto info = parseCertificate(req.peerCertificates.front());
      if (!info.ok()) return AuthnResult::failed(info.error().message());
      if (std::find(s.allowedNames.begin(), s.allowedNames.end(), info->commonName) == s.allowedNames.end()) {
        return AuthnResult::failed("x509: subject with cn=" + info->commonName + " is not in the allowed list");
      }
    }
    UserInfo u;
    u.name = headerValue(req, s.usernameHeaders);
    if (u.name.empty()) return AuthnResult::noOpinion();
    u.uid = headerValue(req, s.uidHeaders);
    u.groups = allHeaderValues(req, s.groupHeaders);
    u.extra = newExtra(req, s.extraHeaderPrefixes);
    return AuthnResult::authenticated(std::move(u));
  }

 private:
  std::shared_ptr<const Dynamic<RequestHeaderBundle>> rh_;
};

class WebhookTokenAuthenticator final : public TokenAuthenticator {
 public:
  WebhookTokenAuthenticator(AuthApi& api, std::vector<std::string> audiences)
      : api_(api), audiences_(std::move(audiences)) {}

  AuthnResult authenticateToken(const std::string& token) override {
    json review = {{"apiVersion", "authentication.k8s.io/v1"},
                   {"kind", "TokenReview"},
                   {"metadata", {{"creationTimestamp", nullptr}}},
                   {"spec", {{"token", token}}}};
    if (!audiences_.empty()) review["spec"]["audiences"] = audiences_;
    auto r = api_.createTokenReview(review.dump());
    if (!r.ok()) {
      spdlog::error("Failed to make webhook authenticator request: {}", r.error().message());
      return AuthnResult::failed(r.error().message());
    }
    try {
      const json answer = json::parse(*r);
      const json status = answer.value("status", json::object());
      if (!audiences_.empty()) {
        std::vector<std::string> got = status.value("audiences", std::vector<std::string>{});
        if (got.empty()) return AuthnResult::noOpinion();  // no implicit audiences configured
        bool any = std::any_of(got.begin(), got.end(), [&](const std::string& a) {
          return std::find(audiences_.begin(), audiences_.end(), a) != audiences_.end();
        });
        if (!any) return AuthnResult::noOpinion();
      }
      if (!status.value("authenticated", false)) {
        const std::string err = status.value("error", "");
        return err.empty() ? AuthnResult::noOpinion() : AuthnResult::failed(err);
      }
      const json user = status.value("user", json::object());
      UserInfo u;
      u.name = user.value("username", "");
      u.uid = user.value("uid", "");
      u.groups = user.value("groups", std::vector<std::string>{});
      u.extra = user.value("extra", std::map<std::string, std::vector<std::string>>{});
      return AuthnResult::authenticated(std::move(u));
    } catch (const std::exception& e) {
      return AuthnResult::failed(std::string("decoding the TokenReview response: ") + e.what());
    }
  }

 private:
  AuthApi& api_;
  const std::vector<std::string> audiences_;
};

class CachedTokenAuthenticator final : public TokenAuthenticator {
 public:
  CachedTokenAuthenticator(std::unique_ptr<TokenAuthenticator> inner, std::chrono::steady_clock::duration successTtl,
                           std::chrono::steady_clock::duration failureTtl, Clock clock,
                           std::vector<std::string> audiences)
      : inner_(std::move(inner)),
        successTtl_(successTtl),
        failureTtl_(failureTtl),
        audiences_(std::move(audiences)),
        cache_(kMaxEntries, std::move(clock)) {
    if (RAND_bytes(key_.data(), static_cast<int>(key_.size())) != 1) {
      // Without randomness the HMAC still keeps tokens out of memory; it only loses unpredictability.
      key_.fill(0x5a);
    }
  }

  AuthnResult authenticateToken(const std::string& token) override {
    const std::string key = keyFor(token);
    if (auto hit = cache_.get(key)) return *hit;
    // Concurrent misses of one key share one lookup (upstream's singleflight group).
    std::promise<AuthnResult> promise;
    std::shared_future<AuthnResult> shared;
    {
      std::lock_guard lock(inflightMu_);
      if (auto it = inflight_.find(key); it != inflight_.end()) {
        shared = it->second;
      } else {
        inflight_.emplace(key, promise.get_future().share());
      }
    }
    if (shared.valid()) return shared.get();
    AuthnResult r;
    if (auto hit = cache_.get(key)) {
      r = *hit;
    } else {
      r = inner_->authenticateToken(token);
      // cacheErrs=false: errors are retried on the next request.
      if (!r.error) cache_.set(key, r, r.ok ? successTtl_ : failureTtl_);
    }
    promise.set_value(r);
    std::lock_guard lock(inflightMu_);
    inflight_.erase(key);
    return r;
  }

 private:
  static constexpr size_t kMaxEntries = 4096;

  // As upstream keyFunc: length-prefixed token, then the audience count and each audience.
  std::string keyFor(const std::string& token) const {
    std::string data;
    auto putLen = [&](size_t n) {
      for (int i = 3; i >= 0; --i) data.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
    };
    putLen(token.size());
    data += token;
    putLen(audiences_.size());
    for (const auto& a : audiences_) {
      putLen(a.size());
      data += a;
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
         reinterpret_cast<const unsigned char*>(data.data()), data.size(), md, &len);
    OPENSSL_cleanse(data.data(), data.size());
    return std::string(reinterpret_cast<const char*>(md), len);
  }

  std::unique_ptr<TokenAuthenticator> inner_;
  const std::chrono::steady_clock::duration successTtl_;
  const std::chrono::steady_clock::duration failureTtl_;
  const std::vector<std::string> audiences_;
  std::array<unsigned char, 32> key_{};
  TtlCache<AuthnResult> cache_;
  std::mutex inflightMu_;
  std::unordered_map<std::string, std::shared_future<AuthnResult>> inflight_;  // guarded by inflightMu_
};

class BearerTokenAuthenticator final : public Authenticator {
 public:
  explicit BearerTokenAuthenticator(std::shared_ptr<TokenAuthenticator> tokens) : tokens_(std::move(tokens)) {}

  AuthnResult authenticate(const Request& req) override {
    const std::string* h = firstHeader(req, "authorization");
    if (h == nullptr) return AuthnResult::noOpinion();
    std::string_view auth = *h;
    while (!auth.empty() && std::isspace(static_cast<unsigned char>(auth.front()))) auth.remove_prefix(1);
    while (!auth.empty() && std::isspace(static_cast<unsigned char>(auth.back()))) auth.remove_suffix(1);
    if (auth.empty()) return AuthnResult::noOpinion();
    // strings.SplitN(auth, " ", 3)
    size_t sp = auth.find(' ');
    if (sp == std::string_view::npos || asciiLower(auth.substr(0, sp)) != "bearer") return AuthnResult::noOpinion();
    std::string_view rest = auth.substr(sp + 1);
    std::string token(rest.substr(0, rest.find(' ')));
    if (token.empty()) return AuthnResult::noOpinion();
    AuthnResult r = tokens_->authenticateToken(token);
    if (!r.ok && !r.error) r.error = "invalid bearer token";
    return r;
  }

 private:
  std::shared_ptr<TokenAuthenticator> tokens_;
};

class AnonymousAuthenticator final : public Authenticator {
 public:
  AuthnResult authenticate(const Request&) override {
    UserInfo u;
    u.name = kAnonymousUser;
    u.groups = {kAllUnauthenticated};
    return AuthnResult::authenticated(std::move(u));
  }
};

class UnionAuthenticator final : public Authenticator {
 public:
  UnionAuthenticator(std::vector<std::unique_ptr<Authenticator>> all, bool failOnError)
      : all_(std::move(all)), failOnError_(failOnError) {}

  AuthnResult authenticate(const Request& req) override {
    std::vector<std::string> errors;
    for (const auto& a : all_) {
      AuthnResult r = a->authenticate(req);
      if (r.error) {
        if (failOnError_) return r;
        errors.push_back(*r.error);
        continue;
      }
      if (r.ok) return r;
    }
    if (errors.empty()) return AuthnResult::noOpinion();
    // utilerrors.NewAggregate: one error as is, several as "[e1, e2]".
    if (errors.size() == 1) return AuthnResult::failed(errors.front());
    std::string msg = "[";
    for (size_t i = 0; i < errors.size(); ++i) msg += (i > 0 ? ", " : "") + errors[i];
    return AuthnResult::failed(msg + "]");
  }

 private:
  std::vector<std::unique_ptr<Authenticator>> all_;
  const bool failOnError_;
};

class AuthenticatedGroupAdder final : public Authenticator {
 public:
  explicit AuthenticatedGroupAdder(std::unique_ptr<Authenticator> inner) : inner_(std::move(inner)) {}

  AuthnResult authenticate(const Request& req) override {
    AuthnResult r = inner_->authenticate(req);
    if (r.error || !r.ok) return r;
    if (r.user.name == kAnonymousUser) return r;
    for (const auto& g : r.user.groups) {
      if (g == kAllAuthenticated || g == kAllUnauthenticated) return r;
    }
    r.user.groups.push_back(kAllAuthenticated);
    return r;
  }

 private:
  std::unique_ptr<Authenticator> inner_;
};

}  // namespace

std::unique_ptr<Authenticator> newX509Authenticator(std::shared_ptr<const DynamicCA> ca) {
  return std::make_unique<X509Authenticator>(std::move(ca));
}

std::unique_ptr<Authenticator> newRequestHeaderAuthenticator(std::shared_ptr<const Dynamic<RequestHeaderBundle>> rh) {
  return std::make_unique<RequestHeaderAuthenticator>(std::move(rh));
}

std::unique_ptr<TokenAuthenticator> newWebhookTokenAuthenticator(AuthApi& api, std::vector<std::string> audiences) {
  return std::make_unique<WebhookTokenAuthenticator>(api, std::move(audiences));
}

std::unique_ptr<TokenAuthenticator> newCachedTokenAuthenticator(std::unique_ptr<TokenAuthenticator> inner,
                                                                std::chrono::steady_clock::duration successTtl,
                                                                std::chrono::steady_clock::duration failureTtl,
                                                                Clock clock, std::vector<std::string> audiences) {
  return std::make_unique<CachedTokenAuthenticator>(std::move(inner), successTtl, failureTtl, std::move(clock),
                                                    std::move(audiences));
}

std::unique_ptr<Authenticator> newBearerTokenAuthenticator(std::shared_ptr<TokenAuthenticator> tokens) {
  return std::make_unique<BearerTokenAuthenticator>(std::move(tokens));
}

std::unique_ptr<Authenticator> newAnonymousAuthenticator() {
  return std::make_unique<AnonymousAuthenticator>();
}

std::unique_ptr<Authenticator> newUnionAuthenticator(std::vector<std::unique_ptr<Authenticator>> authenticators,
                                                     bool failOnError) {
  return std::make_unique<UnionAuthenticator>(std::move(authenticators), failOnError);
}

std::unique_ptr<Authenticator> newAuthenticatedGroupAdder(std::unique_ptr<Authenticator> inner) {
  return std::make_unique<AuthenticatedGroupAdder>(std::move(inner));
}

}  // namespace ks::server::auth
