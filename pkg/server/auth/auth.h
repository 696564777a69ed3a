#pragma once
// Delegated authentication and authorization of the daemon's secure port, as upstream kube-scheduler's
// (k8s.io/apiserver: DelegatingAuthenticationOptions / DelegatingAuthorizationOptions and the
// WithAuthentication / WithAuthorization filters). The pieces, each behind one small interface:
//
//   Authenticator  request -> user: x509 client certificates, front-proxy request headers, bearer tokens
//                  through TokenReview (cached), anonymous; combined as upstream's DelegatingAuthenticator.
//   Authorizer     (user, verb, path) -> decision: always-allow paths, always-allow groups, then
//                  SubjectAccessReview (cached); combined as upstream's union.
//   AuthApi        the calls to kube-apiserver (TokenReview, SubjectAccessReview, the
//                  extension-apiserver-authentication ConfigMap); the REST client implements it, tests fake it.
//
// Every interface here is called on server connection threads, concurrently: implementations are
// thread-safe.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pkg/client/client.h"
#include "pkg/server/server.h"

namespace ks::server::auth {

inline constexpr const char* kAnonymousUser = "system:anonymous";
inline constexpr const char* kAllUnauthenticated = "system:unauthenticated";
inline constexpr const char* kAllAuthenticated = "system:authenticated";
inline constexpr const char* kSystemMasters = "system:masters";
// user.CredentialIDKey: set by the x509 authenticator to "X509SHA256=<hex of the leaf's SHA-256>".
inline constexpr const char* kCredentialIdKey = "authentication.kubernetes.io/credential-id";

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

// authenticator.Request's (response, ok, err) triple: ok with a user; not ok and no error ("no opinion":
// these credentials are not mine); or an error (credentials given but invalid, or the check failed).
struct AuthnResult {
  bool ok = false;
  UserInfo user;
  std::optional<std::string> error;

  static AuthnResult authenticated(UserInfo u) { return {true, std::move(u), std::nullopt}; }
  static AuthnResult noOpinion() { return {}; }
  static AuthnResult failed(std::string e) { return {false, {}, std::move(e)}; }
};

class Authenticator {
 public:
  virtual ~Authenticator() = default;
  // Authenticates `req` (headers, peer certificates). Called concurrently on connection threads.
  virtual AuthnResult authenticate(const Request& req) = 0;
};

// authorizer.Attributes for the non-resource requests this server serves.
struct Attributes {
  UserInfo user;
  std::string verb;  // the lower-cased HTTP method, as upstream's RequestInfo for non-API paths
  std::string path;
};

enum class Decision { Deny, Allow, NoOpinion };

struct AuthzResult {
  Decision decision = Decision::NoOpinion;
  std::string reason;
  std::optional<std::string> error;
};

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  // Decides on `attrs`. Called concurrently on connection threads.
  virtual AuthzResult authorize(const Attributes& attrs) = 0;
};

// What the delegated authenticator and authorizer need from kube-apiserver. Bodies are JSON; a
// non-2xx answer or a transport failure is an ApiError. Called concurrently.
class AuthApi {
 public:
  virtual ~AuthApi() = default;
  // POST /apis/authentication.k8s.io/v1/tokenreviews; returns the TokenReview the server answered.
  virtual client::ApiResult<std::string> createTokenReview(const std::string& body) = 0;
  // POST /apis/authorization.k8s.io/v1/subjectaccessreviews; returns the answered review.
  virtual client::ApiResult<std::string> createSubjectAccessReview(const std::string& body) = 0;
  // GET /api/v1/namespaces/<ns>/configmaps/<name>; returns the ConfigMap.
  virtual client::ApiResult<std::string> getConfigMap(const std::string& ns, const std::string& name) = 0;
};

}  // namespace ks::server::auth
