#pragma once
// The authentication and authorization filters of upstream kube-scheduler's buildHandlerChain
// (genericapifilters.WithAuthentication + WithAuthorization), in front of every handler, routed or not:
//   - authentication fails (an error, or nobody authenticated) -> 401, metav1.Status reason Unauthorized;
//   - authorized -> the handler;
//   - authorizer error without Allow -> 500 "Internal Server Error: \"<uri>\": <error>" (text/plain);
//   - otherwise -> 403, metav1.Status reason Forbidden, message
//     `forbidden: User "<name>" cannot <verb> path "<path>"` (+ ": <reason>" when the authorizers gave one).
// Status bodies are JSON as kube-apiserver writes them: compact, or indented for ?pretty=true and for
// curl / Wget / browser user agents (whatever the Accept header: no YAML or protobuf).

#include <memory>

#include "pkg/server/auth/auth.h"
#include "pkg/server/server.h"

namespace ks::server::auth {

Filter newAuthFilter(std::shared_ptr<Authenticator> authenticator, std::shared_ptr<Authorizer> authorizer);

// The response bodies, exposed for tests.
Response unauthorizedResponse(const Request& req);
Response forbiddenResponse(const Request& req, const Attributes& attrs, const std::string& reason);

}  // namespace ks::server::auth
