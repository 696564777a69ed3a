#include "pkg/server/auth/authorizers.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace ks::server::auth {
namespace {

using json = nlohmann::json;

std::string trimSlash(std::string_view p) {
  if (!p.empty() && p.front() == '/') p.remove_prefix(1);
  return std::string(p);
}

class PathAuthorizer final : public Authorizer {
 public:
  PathAuthorizer(std::set<std::string> paths, std::vector<std::string> prefixes)
      : paths_(std::move(paths)), prefixes_(std::move(prefixes)) {}

  AuthzResult authorize(const Attributes& a) override {
    const std::string p = trimSlash(a.path);
    if (paths_.count(p) > 0) return {Decision::Allow, "", std::nullopt};
    for (const auto& prefix : prefixes_) {
      if (p.compare(0, prefix.size(), prefix) == 0) return {Decision::Allow, "", std::nullopt};
    }
    return {};
  }

 private:
  const std::set<std::string> paths_;
  const std::vector<std::string> prefixes_;
};

class PrivilegedGroupsAuthorizer final : public Authorizer {
 public:
  explicit PrivilegedGroupsAuthorizer(std::vector<std::string> groups) : groups_(std::move(groups)) {}

  AuthzResult authorize(const Attributes& a) override {
    for (const auto& g : a.user.groups) {
      if (std::find(groups_.begin(), groups_.end(), g) != groups_.end()) return {Decision::Allow, "", std::nullopt};
    }
    return {};
  }

 private:
  const std::vector<std::string> groups_;
};

struct SarStatus {
  bool allowed = false;
  bool denied = false;
  std::string reason;
};

class WebhookAuthorizer final : public Authorizer {
 public:
  WebhookAuthorizer(AuthApi& api, std::chrono::steady_clock::duration allowTtl,
                    std::chrono::steady_clock::duration denyTtl, Clock clock)
      : api_(api), allowTtl_(allowTtl), denyTtl_(denyTtl), cache_(kMaxEntries, std::move(clock)) {}

  AuthzResult authorize(const Attributes& a) override {
    json spec = {{"nonResourceAttributes", {{"path", a.path}, {"verb", a.verb}}}, {"user", a.user.name}};
    if (!a.user.uid.empty()) spec["uid"] = a.user.uid;
    if (!a.user.groups.empty()) spec["groups"] = a.user.groups;
    if (!a.user.extra.empty()) spec["extra"] = a.user.extra;
    // The spec is the cache key, as upstream's json.Marshal(r.Spec) (nlohmann sorts keys: deterministic).
    const std::string key = spec.dump();
    SarStatus status;
    if (auto hit = cache_.get(key)) {
      status = *hit;
    } else {
      json review = {{"apiVersion", "authorization.k8s.io/v1"},
                     {"kind", "SubjectAccessReview"},
                     {"metadata", {{"creationTimestamp", nullptr}}},
                     {"spec", spec},
                     {"status", {{"allowed", false}}}};
      auto r = api_.createSubjectAccessReview(review.dump());
      if (!r.ok()) {
        spdlog::error("Failed to make webhook authorizer request: {}", r.error().message());
        return {Decision::NoOpinion, "", r.error().message()};
      }
      try {
        const json answer = json::parse(*r);
        const json st = answer.value("status", json::object());
        status.allowed = st.value("allowed", false);
        status.denied = st.value("denied", false);
        status.reason = st.value("reason", "");
      } catch (const std::exception& e) {
        return {Decision::NoOpinion, "", std::string("decoding the SubjectAccessReview response: ") + e.what()};
      }
      cache_.set(key, status, status.allowed ? allowTtl_ : denyTtl_);
    }
    if (status.denied && status.allowed) {
      return {Decision::Deny, status.reason, "webhook subject access review returned both allow and deny response"};
    }
    if (status.denied) return {Decision::Deny, status.reason, std::nullopt};
    if (status.allowed) return {Decision::Allow, status.reason, std::nullopt};
    return {Decision::NoOpinion, status.reason, std::nullopt};
  }

 private:
  static constexpr size_t kMaxEntries = 1024;  // upstream's LRU size
  AuthApi& api_;
  const std::chrono::steady_clock::duration allowTtl_;
  const std::chrono::steady_clock::duration denyTtl_;
  TtlCache<SarStatus> cache_;
};

class UnionAuthorizer final : public Authorizer {
 public:
  explicit UnionAuthorizer(std::vector<std::unique_ptr<Authorizer>> all) : all_(std::move(all)) {}

  AuthzResult authorize(const Attributes& a) override {
    std::vector<std::string> errors;
    std::vector<std::string> reasons;
    for (const auto& z : all_) {
      AuthzResult r = z->authorize(a);
      if (r.error) errors.push_back(*r.error);
      if (!r.reason.empty()) reasons.push_back(r.reason);
      if (r.decision != Decision::NoOpinion) return r;
    }
    AuthzResult out;
    for (size_t i = 0; i < reasons.size(); ++i) out.reason += (i > 0 ? "\n" : "") + reasons[i];
    if (errors.size() == 1) {
      out.error = errors.front();
    } else if (errors.size() > 1) {
      std::string msg = "[";
      for (size_t i = 0; i < errors.size(); ++i) msg += (i > 0 ? ", " : "") + errors[i];
      out.error = msg + "]";
    }
    return out;
  }

 private:
  std::vector<std::unique_ptr<Authorizer>> all_;
};

}  // namespace

Result<std::unique_ptr<Authorizer>> newPathAuthorizer(const std::vector<std::string>& alwaysAllowPaths) {
  std::set<std::string> paths;
  std::vector<std::string> prefixes;
  for (const auto& raw : alwaysAllowPaths) {
    std::string p = trimSlash(raw);
    if (p.empty()) {
      paths.insert(p);
      continue;
    }
    if (p.substr(0, p.size() - 1).find('*') != std::string::npos) {
      return Error("only trailing * allowed in \"" + p + "\"");
    }
    if (p.back() == '*') {
      prefixes.push_back(p.substr(0, p.size() - 1));
    } else {
      paths.insert(p);
    }
  }
  return std::unique_ptr<Authorizer>(std::make_unique<PathAuthorizer>(std::move(paths), std::move(prefixes)));
}

std::unique_ptr<Authorizer> newPrivilegedGroupsAuthorizer(std::vector<std::string> groups) {
  return std::make_unique<PrivilegedGroupsAuthorizer>(std::move(groups));
}

std::unique_ptr<Authorizer> newWebhookAuthorizer(AuthApi& api, std::chrono::steady_clock::duration allowTtl,
                                                 std::chrono::steady_clock::duration denyTtl, Clock clock) {
  return std::make_unique<WebhookAuthorizer>(api, allowTtl, denyTtl, std::move(clock));
}

std::unique_ptr<Authorizer> newUnionAuthorizer(std::vector<std::unique_ptr<Authorizer>> authorizers) {
  return std::make_unique<UnionAuthorizer>(std::move(authorizers));
}

}  // namespace ks::server::auth
