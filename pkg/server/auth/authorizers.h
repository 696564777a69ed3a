#pragma once
// The authorizers of upstream's DelegatingAuthorizationOptions.toAuthorizer, composed by delegating.h as
// upstream does: union(privileged groups, always-allow paths[, SubjectAccessReview webhook]).

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "pkg/server/auth/auth.h"
#include "pkg/server/auth/ttl_cache.h"
#include "pkg/util/result.h"

namespace ks::server::auth {

// path.NewAuthorizer: allows the listed paths (leading "/" optional), and every path starting with
// "<prefix>" for an entry "<prefix>*"; a '*' anywhere else is an error ("only trailing * allowed in
// \"<path>\""). No opinion otherwise.
Result<std::unique_ptr<Authorizer>> newPathAuthorizer(const std::vector<std::string>& alwaysAllowPaths);

// authorizerfactory.NewPrivilegedGroups: allows users in any of `groups`.
std::unique_ptr<Authorizer> newPrivilegedGroupsAuthorizer(std::vector<std::string> groups);

// The SubjectAccessReview webhook (plugin/pkg/authorizer/webhook) as the delegating authorizer sets it up:
// nonResourceAttributes {path, verb} with the user's name, uid, groups and extra; answers cached by spec,
// allowed ones for allowTtl and denied ones for denyTtl; a failed call is NoOpinion with the error.
std::unique_ptr<Authorizer> newWebhookAuthorizer(AuthApi& api, std::chrono::steady_clock::duration allowTtl,
                                                 std::chrono::steady_clock::duration denyTtl,
                                                 Clock clock = steadyClock());

// union.New: the first Allow or Deny wins; otherwise NoOpinion with the non-empty reasons joined by "\n"
// and the errors aggregated.
std::unique_ptr<Authorizer> newUnionAuthorizer(std::vector<std::unique_ptr<Authorizer>> authorizers);

}  // namespace ks::server::auth
