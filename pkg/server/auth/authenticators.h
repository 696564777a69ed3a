#pragma once
// The authenticators of upstream's DelegatingAuthenticatorConfig.New, one factory each, composed by
// delegating.h as upstream does:
//   FailOnError(AuthenticatedGroupAdder(Union(requestheader, x509, bearer token)), anonymous)
// i.e. a request with invalid credentials fails (401) and one with none is system:anonymous.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "pkg/server/auth/auth.h"
#include "pkg/server/auth/ca_bundle.h"
#include "pkg/server/auth/ttl_cache.h"

namespace ks::server::auth {

// x509.NewDynamic with CommonNameUserConversion: a client certificate that verifies against the current
// CA is user CN with groups O (and extra credential-id). No certificate, no CA yet, or an empty CN: no
// opinion. A certificate that does not verify: an error.
std::unique_ptr<Authenticator> newX509Authenticator(std::shared_ptr<const DynamicCA> ca);

// The front-proxy settings (--requestheader-* or the ConfigMap's requestheader-* keys).
struct RequestHeaderSettings {
  std::vector<std::string> usernameHeaders;
  std::vector<std::string> uidHeaders;
  std::vector<std::string> groupHeaders;
  std::vector<std::string> extraHeaderPrefixes;
  std::vector<std::string> allowedNames;  // empty: any certificate the CA verifies
};

struct RequestHeaderBundle {
  std::shared_ptr<const CABundle> ca;
  RequestHeaderSettings settings;
};

// headerrequest.NewDynamicVerifyOptionsSecure: the client certificate must verify against the
// request-header CA and, when allowedNames is set, have one of those CNs ("x509: subject with cn=<cn> is
// not in the allowed list"); then the user comes from the headers (no username header: no opinion).
std::unique_ptr<Authenticator> newRequestHeaderAuthenticator(std::shared_ptr<const Dynamic<RequestHeaderBundle>> rh);

class TokenAuthenticator {
 public:
  virtual ~TokenAuthenticator() = default;
  // Authenticates a bearer token. Called concurrently.
  virtual AuthnResult authenticateToken(const std::string& token) = 0;
};

// The TokenReview webhook (plugin/pkg/authenticator/token/webhook): POST a TokenReview with the token
// (and `audiences`); authenticated -> the user; not authenticated -> no user, with status.error as the
// error when set; a failed call -> an error.
std::unique_ptr<TokenAuthenticator> newWebhookTokenAuthenticator(AuthApi& api, std::vector<std::string> audiences = {});

// token/cache with cacheErrs=false: results without an error are cached, successes for successTtl and
// failures for failureTtl, keyed by an HMAC-SHA256 of the token (and audiences) under a random per-process
// key, so the cache never holds a token. Concurrent lookups of one token wait for one TokenReview.
std::unique_ptr<TokenAuthenticator> newCachedTokenAuthenticator(std::unique_ptr<TokenAuthenticator> inner,
                                                                std::chrono::steady_clock::duration successTtl,
                                                                std::chrono::steady_clock::duration failureTtl,
                                                                Clock clock = steadyClock(),
                                                                std::vector<std::string> audiences = {});

// bearertoken.New: "Authorization: Bearer <token>"; no header, another scheme or an empty token: no
// opinion; a token the authenticator does not accept: error "invalid bearer token" (or its error).
std::unique_ptr<Authenticator> newBearerTokenAuthenticator(std::shared_ptr<TokenAuthenticator> tokens);

// anonymous: always system:anonymous in system:unauthenticated.
std::unique_ptr<Authenticator> newAnonymousAuthenticator();

// union: the first authenticator that authenticates wins. Without failOnError the errors are collected
// and returned only when none authenticated; with failOnError the first error ends the walk.
std::unique_ptr<Authenticator> newUnionAuthenticator(std::vector<std::unique_ptr<Authenticator>> authenticators,
                                                     bool failOnError = false);

// group.NewAuthenticatedGroupAdder: adds system:authenticated to every authenticated user except
// system:anonymous and users already in system:authenticated or system:unauthenticated.
std::unique_ptr<Authenticator> newAuthenticatedGroupAdder(std::unique_ptr<Authenticator> inner);

}  // namespace ks::server::auth
