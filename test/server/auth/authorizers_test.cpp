#include "pkg/server/auth/authorizers.h"

#include <gtest/gtest.h>

#include "test/server/auth/fake_auth_api.h"

namespace ks::server::auth {
namespace {

using namespace std::chrono_literals;
using testing::FakeAuthApi;

Attributes attrs(std::string path, std::string user = "u", std::vector<std::string> groups = {},
                 std::string verb = "get") {
  return Attributes{UserInfo{std::move(user), "", std::move(groups), {}}, std::move(verb), std::move(path)};
}

// upstream path_test.go TestNewAuthorizer
TEST(PathAuthorizer, UpstreamCases) {
  struct Case {
    std::string name;
    std::vector<std::string> paths;
    std::vector<std::string> allowed, noOpinion;
    bool wantErr;
  };
  const std::vector<Case> cases = {
      {"inner star", {"/foo*bar"}, {}, {}, true},
      {"double star", {"/foo**"}, {}, {}, true},
      {"empty", {}, {}, {"/"}, false},
      {"slash", {"/"}, {"/"}, {"/foo", "//"}, false},
      {"foo", {"/foo"}, {"/foo", "foo"}, {"/", "", "/bar", "/foo/", "/fooooo", "//foo"}, false},
      {"foo slash", {"/foo/"}, {"/foo/"}, {"/", "", "/bar", "/foo", "/fooooo"}, false},
      {"foo slash star", {"/foo/*"}, {"/foo/", "/foo/bar/bla"}, {"/", "", "/foo", "/bar", "/fooooo"}, false},
      {"foo bar", {"/foo", "/bar"}, {"/foo", "/bar"}, {"/", "", "/foo/", "/bar/", "/fooooo"}, false},
      {"foo star", {"/foo*"}, {"/foo", "/foooo"}, {"/", "", "/fo", "/bar"}, false},
      {"star", {"/*"}, {"/", "", "/foo", "/foooo"}, {}, false},
  };
  for (const auto& c : cases) {
    auto a = newPathAuthorizer(c.paths);
    ASSERT_EQ(a.ok(), !c.wantErr) << c.name;
    if (!a.ok()) continue;
    for (const auto& p : c.allowed) EXPECT_EQ((*a)->authorize(attrs(p)).decision, Decision::Allow) << c.name << " " << p;
    for (const auto& p : c.noOpinion) {
      EXPECT_EQ((*a)->authorize(attrs(p)).decision, Decision::NoOpinion) << c.name << " " << p;
    }
  }
  EXPECT_EQ(newPathAuthorizer({"/foo*bar"}).error().message(), "only trailing * allowed in \"foo*bar\"");
}

TEST(PrivilegedGroupsAuthorizer, AllowsMembers) {
  auto a = newPrivilegedGroupsAuthorizer({"system:masters"});
  EXPECT_EQ(a->authorize(attrs("/metrics", "root", {"x", "system:masters"})).decision, Decision::Allow);
  EXPECT_EQ(a->authorize(attrs("/metrics", "system:masters", {"x"})).decision, Decision::NoOpinion);
}

TEST(WebhookAuthorizer, SendsNonResourceAttributesAndCachesByDecision) {
  FakeAuthApi api;
  api.allow("eve", "get", "/metrics");
  std::chrono::steady_clock::time_point now{std::chrono::hours(1)};
  auto a = newWebhookAuthorizer(api, 10s, 3s, [&] { return now; });

  Attributes eve = attrs("/metrics", "eve", {"g1", "system:authenticated"});
  eve.user.uid = "42";
  eve.user.extra["k"] = {"v"};
  EXPECT_EQ(a->authorize(eve).decision, Decision::Allow);
  const auto sar = api.lastAccessReview();
  EXPECT_EQ(sar["apiVersion"], "authorization.k8s.io/v1");
  EXPECT_EQ(sar["kind"], "SubjectAccessReview");
  EXPECT_EQ(sar["spec"]["nonResourceAttributes"], (nlohmann::json{{"path", "/metrics"}, {"verb", "get"}}));
  EXPECT_EQ(sar["spec"]["user"], "eve");
  EXPECT_EQ(sar["spec"]["uid"], "42");
  EXPECT_EQ(sar["spec"]["groups"], (nlohmann::json{"g1", "system:authenticated"}));
  EXPECT_EQ(sar["spec"]["extra"], (nlohmann::json{{"k", {"v"}}}));
  EXPECT_FALSE(sar["spec"].contains("resourceAttributes"));

  EXPECT_EQ(a->authorize(eve).decision, Decision::Allow);
  EXPECT_EQ(api.accessReviews(), 1);
  Attributes frank = attrs("/metrics", "frank");
  EXPECT_EQ(a->authorize(frank).decision, Decision::NoOpinion);
  EXPECT_EQ(a->authorize(frank).decision, Decision::NoOpinion);
  EXPECT_EQ(api.accessReviews(), 2);
  // Another verb is another question.
  EXPECT_EQ(a->authorize(attrs("/metrics", "eve", {"g1", "system:authenticated"}, "post")).decision,
            Decision::NoOpinion);
  EXPECT_EQ(api.accessReviews(), 3);

  now += 4s;  // the denial expired (3 s), the approval (10 s) not
  EXPECT_EQ(a->authorize(eve).decision, Decision::Allow);
  EXPECT_EQ(a->authorize(frank).decision, Decision::NoOpinion);
  EXPECT_EQ(api.accessReviews(), 4);
  now += 7s;
  EXPECT_EQ(a->authorize(eve).decision, Decision::Allow);
  EXPECT_EQ(api.accessReviews(), 5);
}

TEST(WebhookAuthorizer, ErrorsAreNoOpinionWithTheErrorAndNotCached) {
  FakeAuthApi api;
  api.allow("eve", "get", "/metrics");
  auto a = newWebhookAuthorizer(api, 10s, 10s);
  api.failWith(503);
  AuthzResult r = a->authorize(attrs("/metrics", "eve"));
  EXPECT_EQ(r.decision, Decision::NoOpinion);
  EXPECT_EQ(r.error.value_or(""), "the server is on fire");
  api.failWith(0);
  EXPECT_EQ(a->authorize(attrs("/metrics", "eve")).decision, Decision::Allow);
  EXPECT_EQ(api.accessReviews(), 2);
}

class FixedAuthorizer final : public Authorizer {
 public:
  explicit FixedAuthorizer(AuthzResult r) : r_(std::move(r)) {}
  AuthzResult authorize(const Attributes&) override { return r_; }

 private:
  AuthzResult r_;
};

TEST(UnionAuthorizer, FirstDecisionWinsElseReasonsAndErrors) {
  auto make = [](std::vector<AuthzResult> results) {
    std::vector<std::unique_ptr<Authorizer>> all;
    for (auto& r : results) all.push_back(std::make_unique<FixedAuthorizer>(std::move(r)));
    return newUnionAuthorizer(std::move(all));
  };
  AuthzResult deny = make({{Decision::NoOpinion, "r1", std::nullopt}, {Decision::Deny, "no", std::nullopt},
                           {Decision::Allow, "", std::nullopt}})
                         ->authorize(attrs("/x"));
  EXPECT_EQ(deny.decision, Decision::Deny);
  EXPECT_EQ(deny.reason, "no");
  AuthzResult none = make({{Decision::NoOpinion, "r1", "e1"}, {Decision::NoOpinion, "", std::nullopt},
                           {Decision::NoOpinion, "r2", "e2"}})
                         ->authorize(attrs("/x"));
  EXPECT_EQ(none.decision, Decision::NoOpinion);
  EXPECT_EQ(none.reason, "r1\nr2");
  EXPECT_EQ(none.error.value_or(""), "[e1, e2]");
}

}  // namespace
}  // namespace ks::server::auth
