// deploy/base/rbac.yaml against what the code calls: every request the REST client can send is recorded by
// a loopback server, turned into the attributes kube-apiserver's RBAC authorizer checks (verb, API group,
// resource/subresource, namespace, name, as its RequestInfo resolves them), and checked both ways:
//   - each request is allowed by the ClusterRole or a Role bound in deploy/ (least privilege is enough);
//   - each verb a rule grants is used by some request (no over-grant).
// A new API call in pkg/client/rest must be exercised here (callEveryApi) and granted in rbac.yaml; the
// daemon integration test (test/integration/daemon/deploy_test.cpp) runs the real daemon with the
// ServiceAccount's token, which proves the same on a real apiserver.

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stop_token>
#include <string>
#include <type_traits>
#include <vector>

#include "pkg/client/rest/rest_client.h"
#include "test/client/rest/test_http_server.h"

namespace ks {
namespace {

using client::rest::RestClient;
using client::rest::RestConfig;
using client::rest::testing::ResponseWriter;
using client::rest::testing::TestHttpServer;
using client::rest::testing::TestRequest;

const std::string kSourceDir = KS_SOURCE_DIR;

// What kube-apiserver's RBAC authorizer decides on.
struct Attributes {
  std::string verb;
  std::string apiGroup;
  std::string resource;  // "pods" or "pods/binding"
  std::string namespace_;
  std::string name;

  std::string str() const {
    return verb + " " + (apiGroup.empty() ? "core" : apiGroup) + "/" + resource +
           (namespace_.empty() ? "" : " in " + namespace_) + (name.empty() ? "" : " named " + name);
  }
};

std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream in(path);
  for (std::string p; std::getline(in, p, '/');) {
    if (!p.empty()) parts.push_back(p);
  }
  return parts;
}

// apiserver's RequestInfoFactory for resource requests: /api/v1/... or /apis/<group>/<version>/...,
// then [namespaces/<ns>/]<resource>[/<name>[/<subresource>]]; GET without a name is list (watch with
// ?watch=true), DELETE without a name deletecollection.
Attributes attributesOf(const TestRequest& r) {
  std::vector<std::string> p = splitPath(r.path);
  Attributes a;
  size_t i = 0;
  if (p.size() >= 2 && p[0] == "api") {
    i = 2;
  } else if (p.size() >= 3 && p[0] == "apis") {
    a.apiGroup = p[1];
    i = 3;
  } else {
    ADD_FAILURE() << "not a resource path: " << r.path;
    return a;
  }
  std::vector<std::string> rest(p.begin() + static_cast<std::ptrdiff_t>(i), p.end());
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    a.namespace_ = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (!rest.empty()) a.resource = rest[0];
  if (rest.size() >= 2) a.name = rest[1];
  if (rest.size() >= 3) a.resource += "/" + rest[2];
  const bool watch = r.query.count("watch") && (r.query.at("watch") == "true" || r.query.at("watch") == "1");
  if (r.method == "GET") {
    a.verb = watch ? "watch" : (a.name.empty() ? "list" : "get");
  } else if (r.method == "POST") {
    a.verb = "create";
  } else if (r.method == "PUT") {
    a.verb = "update";
  } else if (r.method == "PATCH") {
    a.verb = "patch";
  } else if (r.method == "DELETE") {
    a.verb = a.name.empty() ? "deletecollection" : "delete";
  }
  return a;
}

struct Rule {
  std::set<std::string> apiGroups, resources, verbs, resourceNames;
  std::string namespace_;  // "" = cluster-wide (ClusterRole via ClusterRoleBinding)
  std::string origin;

  bool allows(const Attributes& a) const {
    if (!namespace_.empty() && a.namespace_ != namespace_) return false;
    if (!resourceNames.empty() && !resourceNames.count(a.name)) return false;
    return apiGroups.count(a.apiGroup) && resources.count(a.resource) && verbs.count(a.verb);
  }
};

std::set<std::string> stringSet(const YAML::Node& n) {
  std::set<std::string> s;
  if (n) {
    for (const auto& v : n) s.insert(v.as<std::string>());
  }
  return s;
}

// The rules deploy/base/rbac.yaml gives the ServiceAccount: its ClusterRole (bound cluster-wide), its Roles
// (bound in their namespace), and the built-in Role extension-apiserver-authentication-reader (upstream's
// bootstrap policy: get/list/watch of that one ConfigMap in kube-system). Every binding must name the
// ServiceAccount kube-system/kube-scheduler-cpp.
std::vector<Rule> grantedRules() {
  const std::vector<YAML::Node> docs = YAML::LoadAllFromFile(kSourceDir + "/deploy/base/rbac.yaml");
  std::map<std::string, std::vector<Rule>> roles;  // "ClusterRole/name" or "Role/ns/name"
  for (const auto& d : docs) {
    const std::string kind = d["kind"].as<std::string>();
    if (kind != "ClusterRole" && kind != "Role") continue;
    const std::string ns = kind == "Role" ? d["metadata"]["namespace"].as<std::string>() : "";
    const std::string key = kind + "/" + (ns.empty() ? "" : ns + "/") + d["metadata"]["name"].as<std::string>();
    for (const auto& r : d["rules"]) {
      roles[key].push_back(Rule{stringSet(r["apiGroups"]), stringSet(r["resources"]), stringSet(r["verbs"]),
                                stringSet(r["resourceNames"]), ns, key});
    }
  }
  roles["Role/kube-system/extension-apiserver-authentication-reader"] = {
      Rule{{""}, {"configmaps"}, {"get", "list", "watch"}, {"extension-apiserver-authentication"},
           "kube-system", "built-in Role extension-apiserver-authentication-reader"}};

  std::vector<Rule> granted;
  for (const auto& d : docs) {
    const std::string kind = d["kind"].as<std::string>();
    if (kind != "ClusterRoleBinding" && kind != "RoleBinding") continue;
    bool forUs = false;
    for (const auto& s : d["subjects"]) {
      forUs = forUs || (s["kind"].as<std::string>() == "ServiceAccount" &&
                        s["name"].as<std::string>() == "kube-scheduler-cpp" &&
                        s["namespace"].as<std::string>() == "kube-system");
    }
    EXPECT_TRUE(forUs) << kind << " " << d["metadata"]["name"].as<std::string>() << " binds someone else";
    const std::string refKind = d["roleRef"]["kind"].as<std::string>();
    const std::string bindingNs = kind == "RoleBinding" ? d["metadata"]["namespace"].as<std::string>() : "";
    const std::string key =
        refKind + "/" + (refKind == "Role" ? bindingNs + "/" : "") + d["roleRef"]["name"].as<std::string>();
    auto it = roles.find(key);
    EXPECT_NE(it, roles.end()) << kind << " refers to " << key << ", which deploy/ does not define";
    if (it == roles.end()) continue;
    for (Rule r : it->second) {
      if (kind == "RoleBinding") r.namespace_ = bindingNs;  // a ClusterRole bound by a RoleBinding, too
      granted.push_back(std::move(r));
    }
  }
  return granted;
}

// The Lease the deployed configuration elects on.
std::pair<std::string, std::string> leaseOfDeployedConfig() {
  YAML::Node cfg = YAML::LoadFile(kSourceDir + "/deploy/base/scheduler-config.yaml");
  return {cfg["leaderElection"]["resourceNamespace"].as<std::string>(),
          cfg["leaderElection"]["resourceName"].as<std::string>()};
}

// Answers every request with a minimal body of the right shape; watches end at once.
void respond(const TestRequest& r, ResponseWriter& w) {
  if (r.method == "GET" && r.query.count("watch")) {
    w.start(200, {{"Content-Type", "application/json"}});
    w.end();
    return;
  }
  if (r.method == "GET" && splitPath(r.path).size() % 2 == 1) {  // a collection
    w.send(200, R"({"metadata":{"resourceVersion":"1"},"items":[]})", {{"Content-Type", "application/json"}});
    return;
  }
  w.send(r.method == "POST" ? 201 : 200, R"({"metadata":{"name":"x","resourceVersion":"2"}})",
         {{"Content-Type", "application/json"}});
}

template <typename T>
void listAndWatch(client::ListWatcher<T>& lw) {
  (void)lw.list({});
  std::stop_source stop;
  (void)lw.watch({}, [](api::WatchEvent<T>&&) {}, stop.get_token());
}

// Every call of client::Client and of the auth API (server::auth::AuthApi) the RestClient implements, once.
// Workloads are listed only by tests and tools, never by the scheduler (as upstream's, whose role has
// nothing on them).
void callEveryApi(RestClient& c, const std::string& leaseNamespace, const std::string& leaseName) {
#define KS_WATCHED_KIND(Type, accessor, ...) \
  if constexpr (!std::is_same_v<api::Type, api::Workload>) listAndWatch(c.accessor());
#include "pkg/api/kinds.def"

  api::Binding binding;
  binding.metadata.namespace_ = "default";
  binding.metadata.name = "p";
  binding.target.kind = "Node";
  binding.target.name = "n";
  (void)c.bind(binding);
  client::PodStatusPatch status;
  status.nominatedNodeName = "n";
  (void)c.patchPodStatus("default", "p", status);
  (void)c.deletePod("default", "victim", {});

  api::PersistentVolume pv;
  pv.metadata.name = "pv";
  pv.metadata.resourceVersion = "1";
  (void)c.updatePersistentVolumeBinding(pv);
  api::PersistentVolumeClaim pvc;
  pvc.metadata.namespace_ = "default";
  pvc.metadata.name = "claim";
  pvc.metadata.resourceVersion = "1";
  (void)c.updatePersistentVolumeClaimAnnotations(pvc);

  api::ResourceClaim claim;
  claim.metadata.namespace_ = "default";
  claim.metadata.name = "claim";
  claim.metadata.resourceVersion = "1";
  (void)c.getResourceClaim("default", "claim");
  (void)c.createResourceClaim(claim);
  (void)c.updateResourceClaim(claim);
  (void)c.updateResourceClaimStatus(claim);
  (void)c.removeResourceClaimReservation("default", "claim", "claim-uid", "pod-uid");
  (void)c.deleteResourceClaim("default", "claim", {});

  api::Condition scheduled;
  scheduled.type = "PodGroupInitiallyScheduled";
  scheduled.status = "True";
  (void)c.patchPodGroupStatusCondition("default", "group", scheduled);

  api::Event event;
  event.metadata.namespace_ = "default";
  event.metadata.name = "p.1";
  (void)c.createEvent(event);
  (void)c.updateEventSeries("default", "p.1", api::EventSeries{2, {}});

  api::Lease lease;
  lease.metadata.namespace_ = leaseNamespace;
  lease.metadata.name = leaseName;
  lease.metadata.resourceVersion = "1";
  (void)c.getLease(leaseNamespace, leaseName);
  (void)c.createLease(lease);
  (void)c.updateLease(lease);

  // Delegated authentication and authorization of the secure port (pkg/server/auth).
  (void)c.createTokenReview(R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview"})");
  (void)c.createSubjectAccessReview(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview"})");
  (void)c.getConfigMap("kube-system", "extension-apiserver-authentication");
}

TEST(RbacTest, DeployedRolesGrantExactlyWhatTheClientCalls) {
  TestHttpServer server(respond);
  RestConfig config;
  config.server = server.url();
  config.qps = -1;
  config.retry.maxRetries = 0;
  auto created = RestClient::create(config);
  ASSERT_TRUE(created.ok()) << created.error().message();
  const auto [leaseNamespace, leaseName] = leaseOfDeployedConfig();
  EXPECT_NE(leaseName, "kube-scheduler") << "never elect on the default scheduler's Lease";
  callEveryApi(**created, leaseNamespace, leaseName);

  const std::vector<Rule> rules = grantedRules();
  ASSERT_FALSE(rules.empty());
  std::set<std::tuple<std::string, std::string, std::string>> used;  // origin, resource, verb
  const auto requests = server.requests();
  ASSERT_GE(requests.size(), 40u);
  for (const auto& r : requests) {
    const Attributes a = attributesOf(r);
    bool allowed = false;
    for (const auto& rule : rules) {
      if (!rule.allows(a)) continue;
      allowed = true;
      used.insert({rule.origin, a.apiGroup + "/" + a.resource, a.verb});
    }
    EXPECT_TRUE(allowed) << r.method << " " << r.path << " (" << a.str() << ") is not granted by deploy/base/rbac.yaml";
  }
  for (const auto& rule : rules) {
    if (rule.origin.find("built-in") != std::string::npos) continue;  // not ours to trim
    for (const auto& g : rule.apiGroups) {
      for (const auto& res : rule.resources) {
        for (const auto& v : rule.verbs) {
          EXPECT_TRUE(used.count({rule.origin, g + "/" + res, v}))
              << rule.origin << " grants " << v << " on " << (g.empty() ? "core" : g) << "/" << res
              << ", which the client never calls (over-grant)";
        }
      }
    }
  }
}

TEST(RbacTest, RequestAttributesFollowTheApiserversRequestInfo) {
  auto req = [](std::string method, std::string path, std::map<std::string, std::string> query = {}) {
    TestRequest r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.query = std::move(query);
    return r;
  };
  EXPECT_EQ(attributesOf(req("GET", "/api/v1/pods")).str(), "list core/pods");
  EXPECT_EQ(attributesOf(req("GET", "/api/v1/pods", {{"watch", "true"}})).str(), "watch core/pods");
  EXPECT_EQ(attributesOf(req("GET", "/api/v1/namespaces")).str(), "list core/namespaces");
  EXPECT_EQ(attributesOf(req("POST", "/api/v1/namespaces/ns/pods/p/binding")).str(),
            "create core/pods/binding in ns named p");
  EXPECT_EQ(attributesOf(req("PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l")).str(),
            "update coordination.k8s.io/leases in kube-system named l");
  EXPECT_EQ(attributesOf(req("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews")).str(),
            "create authorization.k8s.io/subjectaccessreviews");
  EXPECT_EQ(attributesOf(req("PUT", "/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/c/status")).str(),
            "update resource.k8s.io/resourceclaims/status in ns named c");
}

}  // namespace
}  // namespace ks
