// The REST client against a real kube-apiserver (test/integration/harness): TLS with the cluster CA
// and client certificate, a wrong CA and a wrong host name refused, list/watch of pods created with
// kubectl, binding twice, the status patch, events, leases, and list/watch throughput.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "pkg/client/rest/config.h"
#include "pkg/client/rest/rest_client.h"
#include "test/integration/harness/control_plane.h"

namespace ks::client::rest {
namespace {

using integration::ControlPlane;
using nlohmann::json;
using namespace std::chrono_literals;

class RestIntegrationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto cp = ControlPlane::start();
    if (!cp.ok()) {
      startError_ = new std::string(cp.error().message());
      return;
    }
    cp_ = cp->release();
  }
  static void TearDownTestSuite() {
    delete cp_;
    cp_ = nullptr;
  }
  void SetUp() override { ASSERT_NE(cp_, nullptr) << (startError_ ? *startError_ : ""); }

  static RestConfig config() {
    auto c = loadKubeconfig(cp_->kubeconfigPath());
    EXPECT_TRUE(c.ok()) << c.error().message();
    RestConfig rc = std::move(c).value();
    rc.qps = 5000;
    rc.burst = 5000;
    return rc;
  }
  static std::unique_ptr<RestClient> client(const RestConfig& c) {
    auto r = RestClient::create(c);
    EXPECT_TRUE(r.ok()) << r.error().message();
    return std::move(r).value();
  }
  static void kubectl(const std::vector<std::string>& args, std::string_view input = {}) {
    auto r = input.empty() ? cp_->kubectl(args) : cp_->kubectl(args, input);
    ASSERT_TRUE(r.ok()) << r.error().message();
  }
  static std::string kubectlOut(const std::vector<std::string>& args) {
    auto r = cp_->kubectl(args);
    EXPECT_TRUE(r.ok()) << r.error().message();
    return r.ok() ? *r : "";
  }
  static std::string podYaml(const std::string& ns, const std::string& name) {
    return json{{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"app", "rest-it"}}}}},
                {"spec",
                 {{"schedulerName", "ks-test"},
                  {"containers", json::array({{{"name", "c"}, {"image", "registry.k8s.io/pause:3.10"}}})}}}}
        .dump();
  }

  static inline ControlPlane* cp_ = nullptr;
  static inline std::string* startError_ = nullptr;
};

TEST_F(RestIntegrationTest, TlsWithClusterCaAndClientCert) {
  RestConfig c = config();
  EXPECT_TRUE(c.server.starts_with("https://127.0.0.1:"));
  EXPECT_FALSE(c.caPem.empty());
  EXPECT_FALSE(c.clientCertPem.empty());
  auto cl = client(c);
  auto ns = cl->namespaces().list({});
  ASSERT_TRUE(ns.ok()) << ns.error().message();
  EXPECT_GE(ns->items.size(), 1u);
}

TEST_F(RestIntegrationTest, WrongCaAndWrongHostAreRefused) {
  const std::string dir = cp_->workDir() + "/wrong-ca";
  std::filesystem::create_directories(dir);
  auto gen = integration::runProcess({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                                      dir + "/k.pem", "-out", dir + "/c.pem", "-subj", "/CN=wrong-ca",
                                      "-days", "1"});
  ASSERT_TRUE(gen.ok() && gen->exitCode == 0);
  RestConfig c = config();
  c.caPem = *readFile(dir + "/c.pem");
  c.retry.maxRetries = 0;
  auto r = client(c)->namespaces().list({});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().isTransport()) << r.error().message();
  std::printf("wrong CA: %s\n", r.error().message().c_str());

  // "127.1" resolves to 127.0.0.1 but is not in the serving certificate's SANs.
  RestConfig h = config();
  h.server.replace(h.server.find("127.0.0.1"), 9, "127.1");
  h.retry.maxRetries = 0;
  r = client(h)->namespaces().list({});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().isTransport()) << r.error().message();

  // "localhost" is in the SANs.
  RestConfig l = config();
  l.server.replace(l.server.find("127.0.0.1"), 9, "localhost");
  EXPECT_TRUE(client(l)->namespaces().list({}).ok());

  // insecure-skip-tls-verify (no CA) connects.
  RestConfig i = config();
  i.caPem.clear();
  i.insecureSkipTlsVerify = true;
  EXPECT_TRUE(client(i)->namespaces().list({}).ok());
}

TEST_F(RestIntegrationTest, ListWatchBindPatch) {
  kubectl({"create", "namespace", "rest-it"});
  for (int i = 0; i < 3; ++i) kubectl({"create", "-f", "-"}, podYaml("rest-it", "p" + std::to_string(i)));
  auto cl = client(config());
  ListOptions lo;
  lo.labelSelector = "app=rest-it";
  lo.limit = 2;
  auto all = listAll(cl->pods(), lo);
  ASSERT_TRUE(all.ok()) << all.error().message();
  ASSERT_EQ(all->items.size(), 3u);
  EXPECT_EQ(all->items[0].spec.schedulerName, "ks-test");

  // Watch from the list's resourceVersion; a pod created now arrives as ADDED.
  std::stop_source stop;
  std::vector<std::string> seen;
  std::thread creator([&] {
    std::this_thread::sleep_for(200ms);
    kubectl({"create", "-f", "-"}, podYaml("rest-it", "p3"));
  });
  WatchOptions wo;
  wo.resourceVersion = all->metadata.resourceVersion;
  wo.labelSelector = "app=rest-it";
  wo.timeoutSeconds = 30;
  auto w = cl->pods().watch(
      wo,
      [&](api::WatchEvent<api::Pod>&& ev) {
        if (ev.type == api::WatchEventType::Added) {
          seen.push_back(ev.object.metadata.name);
          stop.request_stop();
        }
      },
      stop.get_token());
  creator.join();
  ASSERT_TRUE(w.ok()) << w.error().message();
  EXPECT_EQ(seen, std::vector<std::string>{"p3"});

  // Bind, then bind again elsewhere (409) and to the same node (reported as success).
  api::Binding b;
  b.metadata.name = "p0";
  b.metadata.namespace_ = "rest-it";
  b.metadata.uid = all->items[0].metadata.uid;
  b.target.kind = "Node";
  b.target.apiVersion = "v1";
  b.target.name = "node-a";
  auto r = cl->bind(b);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(kubectlOut({"get", "pod", "-n", "rest-it", "p0", "-o", "jsonpath={.spec.nodeName}"}), "node-a");
  b.target.name = "node-b";
  r = cl->bind(b);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().isConflict());
  std::printf("second bind: %d %s: %s\n", r.error().code(), r.error().reason().c_str(),
              r.error().message().c_str());
  EXPECT_NE(r.error().message().find("is already assigned to node \"node-a\""), std::string::npos);
  b.target.name = "node-a";
  EXPECT_TRUE(cl->bind(b).ok());

  // Status patch: PodScheduled=False and nominatedNodeName, then clear the nomination.
  PodStatusPatch patch;
  api::PodCondition cond;
  cond.type = "PodScheduled";
  cond.status = "False";
  cond.reason = "Unschedulable";
  cond.message = "0/0 nodes are available";
  cond.lastTransitionTime = std::chrono::system_clock::now();
  patch.condition = cond;
  patch.nominatedNodeName = "node-z";
  auto p = cl->patchPodStatus("rest-it", "p1", patch);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->status.nominatedNodeName, "node-z");
  EXPECT_EQ(kubectlOut({"get", "pod", "-n", "rest-it", "p1", "-o",
                        "jsonpath={.status.conditions[?(@.type==\"PodScheduled\")].reason}"}),
            "Unschedulable");
  PodStatusPatch clear;
  clear.nominatedNodeName = "";
  p = cl->patchPodStatus("rest-it", "p1", clear);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->status.nominatedNodeName, "");
  EXPECT_EQ(kubectlOut({"get", "pod", "-n", "rest-it", "p1", "-o", "jsonpath={.status.nominatedNodeName}"}),
            "");
  EXPECT_EQ(p->status.conditions.size(), 1u);  // merged by type, not appended

  // Delete with a stale UID precondition fails with 409; with the right one it succeeds.
  DeleteOptions d;
  d.preconditionUid = "wrong-uid";
  auto del = cl->deletePod("rest-it", "p2", d);
  ASSERT_FALSE(del.ok());
  EXPECT_TRUE(del.error().isConflict()) << del.error().message();
  d.preconditionUid = all->items[2].metadata.uid;
  d.gracePeriodSeconds = 0;
  del = cl->deletePod("rest-it", "p2", d);
  EXPECT_TRUE(del.ok()) << del.error().message();
  auto gone = cl->deletePod("rest-it", "p2", {});
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(gone.error().isNotFound());
}

TEST_F(RestIntegrationTest, EventsAndLeases) {
  auto cl = client(config());
  api::Event ev;
  ev.metadata.name = "p0.rest-it-1";
  ev.metadata.namespace_ = "default";
  ev.eventTime = std::chrono::system_clock::now();
  ev.reportingController = "ks-test";
  ev.reportingInstance = "ks-test-1";
  ev.action = "Scheduling";
  ev.reason = "FailedScheduling";
  ev.type = "Warning";
  ev.note = "0/0 nodes are available";
  ev.regarding.kind = "Pod";
  ev.regarding.name = "p0";
  ev.regarding.namespace_ = "default";
  ev.regarding.apiVersion = "v1";
  auto created = cl->createEvent(ev);
  ASSERT_TRUE(created.ok()) << created.error().message();
  EXPECT_FALSE(created->metadata.resourceVersion.empty());
  api::EventSeries s;
  s.count = 2;
  s.lastObservedTime = std::chrono::system_clock::now();
  auto patched = cl->updateEventSeries("default", ev.metadata.name, s);
  ASSERT_TRUE(patched.ok()) << patched.error().message();
  ASSERT_TRUE(patched->series.has_value());
  EXPECT_EQ(patched->series->count, 2);

  auto missing = cl->getLease("kube-system", "rest-it-lease");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.error().isNotFound());
  api::Lease l;
  l.metadata.name = "rest-it-lease";
  l.metadata.namespace_ = "kube-system";
  l.spec.holderIdentity = "a";
  l.spec.leaseDurationSeconds = 15;
  l.spec.renewTime = std::chrono::system_clock::now();
  auto c = cl->createLease(l);
  ASSERT_TRUE(c.ok()) << c.error().message();
  auto dup = cl->createLease(l);
  ASSERT_FALSE(dup.ok());
  EXPECT_TRUE(dup.error().isConflict());
  EXPECT_EQ(dup.error().reason(), "AlreadyExists");
  api::Lease upd = *c;
  upd.spec.holderIdentity = "b";
  auto u = cl->updateLease(upd);
  ASSERT_TRUE(u.ok()) << u.error().message();
  EXPECT_EQ(u->spec.holderIdentity, "b");
  auto stale = cl->updateLease(upd);  // the old resourceVersion
  ASSERT_FALSE(stale.ok());
  EXPECT_TRUE(stale.error().isConflict());
  EXPECT_EQ(stale.error().reason(), "Conflict");
}

TEST_F(RestIntegrationTest, ListWatchThroughput) {
  constexpr int kPods = 2000;
  kubectl({"create", "namespace", "rest-perf"});
  auto cl = client(config());
  auto before = cl->pods().list({.labelSelector = "app=rest-perf", .limit = 1});
  ASSERT_TRUE(before.ok());
  const std::string rv0 = before->metadata.resourceVersion;
  json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
  for (int i = 0; i < kPods; ++i) {
    json pod = json::parse(podYaml("rest-perf", "perf-" + std::to_string(i)));
    pod["metadata"]["labels"]["app"] = "rest-perf";
    list["items"].push_back(std::move(pod));
  }
  const auto c0 = std::chrono::steady_clock::now();
  auto created = cp_->kubectl({"create", "-f", "-"}, list.dump());
  ASSERT_TRUE(created.ok()) << created.error().message();
  std::printf("created %d pods with kubectl in %.1f s\n", kPods,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count());

  ListOptions lo;
  lo.labelSelector = "app=rest-perf";
  lo.limit = 500;
  const auto l0 = std::chrono::steady_clock::now();
  auto all = listAll(cl->pods(), lo);
  const double listSecs = std::chrono::duration<double>(std::chrono::steady_clock::now() - l0).count();
  ASSERT_TRUE(all.ok()) << all.error().message();
  ASSERT_EQ(all->items.size(), static_cast<size_t>(kPods));
  std::printf("list: %d pods in pages of 500 in %.3f s (%.0f pods/s)\n", kPods, listSecs, kPods / listSecs);

  // Replaying the creation from the watch cache.
  std::stop_source stop;
  int added = 0;
  WatchOptions wo;
  wo.resourceVersion = rv0;
  wo.labelSelector = "app=rest-perf";
  wo.timeoutSeconds = 60;
  const auto w0 = std::chrono::steady_clock::now();
  auto w = cl->pods().watch(
      wo,
      [&](api::WatchEvent<api::Pod>&& ev) {
        if (ev.type == api::WatchEventType::Added && ++added == kPods) stop.request_stop();
      },
      stop.get_token());
  const double watchSecs = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  ASSERT_TRUE(w.ok()) << w.error().message();
  EXPECT_EQ(added, kPods);
  std::printf("watch: %d ADDED events in %.3f s (%.0f events/s)\n", added, watchSecs, added / watchSecs);
}

}  // namespace
}  // namespace ks::client::rest
