// The REST client against a real kube-apiserver (test/integration/harness): TLS with the cluster CA
// and client certificate, a wrong CA and a wrong host name refused, list/watch of pods created with
// kubectl, binding twice, the status patch, events, leases, and list/watch throughput; the protobuf
// encoding (contentType application/vnd.kubernetes.protobuf) against JSON on the same apiserver.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "pkg/api/proto/codec.h"
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

// ---- protobuf against JSON --------------------------------------------------------------------------

constexpr std::string_view kProto = "application/vnd.kubernetes.protobuf";

class RestProtobufIntegrationTest : public RestIntegrationTest {
 protected:
  static RestConfig protoConfig() {
    RestConfig c = config();
    c.contentType = kProto;
    return c;
  }
  // Creates a manifest of test/api/proto/testdata/objects (server-set metadata dropped), then its status
  // through the status subresource, as testdata/record.py does.
  static void createFixture(const std::string& file) {
    const std::string path = std::string(KS_APIPROTO_TESTDATA_DIR) + "/objects/" + file;
    json obj = json::parse(kubectlOut({"create", "--dry-run=client", "-o", "json", "-f", path}));
    for (const char* f : {"resourceVersion", "uid", "creationTimestamp", "managedFields", "selfLink"}) {
      obj["metadata"].erase(f);
    }
    json status = obj.contains("status") ? obj["status"] : json();
    obj.erase("status");
    kubectl({"create", "-f", "-"}, obj.dump());
    if (status.is_object() && !status.empty()) {
      std::string kind = obj["kind"];
      std::transform(kind.begin(), kind.end(), kind.begin(), ::tolower);
      std::vector<std::string> args = {"patch", kind, obj["metadata"]["name"], "--subresource=status", "--type=merge",
                                       "-p", json{{"status", status}}.dump()};
      if (obj["metadata"].contains("namespace")) {
        args.push_back("-n");
        args.push_back(obj["metadata"]["namespace"]);
      }
      kubectl(args);
    }
  }
  // curl with the cluster's CA and admin certificate; returns the response headers and the body.
  static std::pair<std::string, std::string> rawGet(const std::string& pathAndQuery, std::string_view accept) {
    const std::string dir = cp_->workDir() + "/raw-get";
    std::filesystem::create_directories(dir);
    auto r = integration::runProcess({"curl", "-sS", "--cacert", cp_->caFile(), "--cert", cp_->clientCertFile(),
                                      "--key", cp_->clientKeyFile(), "-H", "Accept: " + std::string(accept), "-D",
                                      dir + "/headers", "-o", dir + "/body", cp_->serverUrl() + pathAndQuery});
    EXPECT_TRUE(r.ok() && r->exitCode == 0) << (r.ok() ? r->err : r.error().message());
    auto headers = readFile(dir + "/headers");
    auto body = readFile(dir + "/body");
    return {headers.ok() ? *headers : "", body.ok() ? *body : ""};
  }
};

// HTTP/2 header names are lower case; curl prints them as they came.
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

template <typename T>
void expectSameItems(const api::List<T>& a, const api::List<T>& b) {
  ASSERT_EQ(a.items.size(), b.items.size());
  for (size_t i = 0; i < a.items.size(); ++i) {
    EXPECT_TRUE(a.items[i] == b.items[i]) << "item " << i << ": " << a.items[i].metadata.name;
  }
}

void expectSameError(const ApiError& proto, const ApiError& js) {
  EXPECT_EQ(proto.code(), js.code());
  EXPECT_EQ(proto.reason(), js.reason());
  EXPECT_EQ(proto.message(), js.message());
}

// The apiserver really serves protobuf on the paths the client lists and watches (what the client asks
// for is the unit tests' business: restclient_test's ProtobufListsWatchesErrorsAndBindings).
TEST_F(RestProtobufIntegrationTest, ApiserverServesProtobufWhenAsked) {
  auto [headers, body] = rawGet("/api/v1/nodes", kProto);
  EXPECT_NE(lower(headers).find("content-type: application/vnd.kubernetes.protobuf"), std::string::npos) << headers;
  EXPECT_TRUE(api::isProtobufEnvelope(body));
  auto nodes = api::decodeListProto<api::Node>(body);
  ASSERT_TRUE(nodes.ok()) << nodes.error().message();
  auto [watchHeaders, frames] = rawGet("/api/v1/pods?watch=true&timeoutSeconds=1", kProto);
  EXPECT_NE(lower(watchHeaders).find("content-type: application/vnd.kubernetes.protobuf;stream=watch"),
            std::string::npos)
      << watchHeaders;
  auto [jsonHeaders, jsonBody] = rawGet("/api/v1/nodes", "application/json");
  EXPECT_NE(lower(jsonHeaders).find("content-type: application/json"), std::string::npos) << jsonHeaders;
  EXPECT_FALSE(api::isProtobufEnvelope(jsonBody));
}

TEST_F(RestProtobufIntegrationTest, ListsEqualJson) {
  kubectl({"create", "namespace", "shop"});
  kubectl({"create", "namespace", "proto-it"});
  for (const char* f : {"00-priorityclass.yaml", "00-runtimeclass.yaml", "pod.json", "pod_volumes.json", "node.yaml"}) {
    createFixture(f);
  }
  for (int i = 0; i < 3; ++i) kubectl({"create", "-f", "-"}, podYaml("proto-it", "p" + std::to_string(i)));
  auto js = client(config());
  auto pb = client(protoConfig());

  auto jsonPods = js->pods().list({});
  auto protoPods = pb->pods().list({});
  ASSERT_TRUE(jsonPods.ok()) << jsonPods.error().message();
  ASSERT_TRUE(protoPods.ok()) << protoPods.error().message();
  EXPECT_GE(protoPods->items.size(), 5u);
  expectSameItems(*protoPods, *jsonPods);
  // The rich fixtures made it with their status (the comparison is not of empty objects).
  auto richPod = std::find_if(protoPods->items.begin(), protoPods->items.end(),
                              [](const api::Pod& p) { return p.metadata.namespace_ == "shop" && p.spec.nodeName == "node-3"; });
  ASSERT_NE(richPod, protoPods->items.end());
  EXPECT_FALSE(richPod->spec.volumes.empty());
  EXPECT_FALSE(richPod->status.conditions.empty());

  // Paginated, and as shared items (the informers' path).
  ListOptions paged;
  paged.limit = 2;
  auto protoPaged = listAll(pb->pods(), paged);
  ASSERT_TRUE(protoPaged.ok()) << protoPaged.error().message();
  expectSameItems(*protoPaged, *jsonPods);
  auto shared = pb->pods().listShared({});
  ASSERT_TRUE(shared.ok()) << shared.error().message();
  ASSERT_EQ(shared->items.size(), jsonPods->items.size());
  for (size_t i = 0; i < shared->items.size(); ++i) EXPECT_TRUE(*shared->items[i] == jsonPods->items[i]);

  auto jsonNodes = js->nodes().list({});
  auto protoNodes = pb->nodes().list({});
  ASSERT_TRUE(jsonNodes.ok()) << jsonNodes.error().message();
  ASSERT_TRUE(protoNodes.ok()) << protoNodes.error().message();
  ASSERT_EQ(protoNodes->items.size(), 1u);
  EXPECT_EQ(protoNodes->items[0].metadata.name, "node-3");
  EXPECT_FALSE(protoNodes->items[0].spec.taints.empty());
  EXPECT_FALSE(protoNodes->items[0].status.allocatable.empty());
  expectSameItems(*protoNodes, *jsonNodes);

  // What the client decoded is what a raw protobuf GET of the same list decodes to.
  auto [headers, body] = rawGet("/api/v1/namespaces/shop/pods", kProto);
  auto raw = api::decodeListProto<api::Pod>(body);
  ASSERT_TRUE(raw.ok()) << raw.error().message();
  auto shopPods = pb->pods().list({.fieldSelector = "metadata.namespace=shop"});
  ASSERT_TRUE(shopPods.ok()) << shopPods.error().message();
  expectSameItems(*raw, *shopPods);
}

TEST_F(RestProtobufIntegrationTest, WatchEventsEqualJsonAcrossBookmarks) {
  kubectl({"create", "namespace", "proto-watch"});
  auto js = client(config());
  auto pb = client(protoConfig());
  auto before = js->pods().list({.labelSelector = "app=rest-it", .fieldSelector = "metadata.namespace=proto-watch"});
  ASSERT_TRUE(before.ok()) << before.error().message();

  struct Seen {
    std::mutex mu;
    std::vector<api::WatchEvent<api::Pod>> events;  // without bookmarks
    int bookmarks = 0;
    bool deleted = false;
  };
  Seen seenJson, seenProto;
  std::stop_source stop;
  auto watchInto = [&](RestClient& cl, Seen& seen) {
    WatchOptions wo;
    wo.resourceVersion = before->metadata.resourceVersion;
    wo.allowWatchBookmarks = true;
    // The watch cache sends a bookmark 2 s before a watch's deadline.
    wo.timeoutSeconds = 8;
    wo.fieldSelector = "metadata.namespace=proto-watch";
    return cl.pods().watch(
        wo,
        [&](api::WatchEvent<api::Pod>&& ev) {
          std::lock_guard<std::mutex> lock(seen.mu);
          if (ev.type == api::WatchEventType::Bookmark) {
            EXPECT_FALSE(ev.object.metadata.resourceVersion.empty());
            ++seen.bookmarks;
            return;
          }
          seen.deleted = seen.deleted || ev.type == api::WatchEventType::Deleted;
          seen.events.push_back(std::move(ev));
        },
        stop.get_token());
  };
  ApiResult<void> jsonResult, protoResult;
  std::thread jsonWatch([&] { jsonResult = watchInto(*js, seenJson); });
  std::thread protoWatch([&] { protoResult = watchInto(*pb, seenProto); });

  kubectl({"create", "-f", "-"}, podYaml("proto-watch", "w0"));
  kubectl({"label", "pod", "-n", "proto-watch", "w0", "stage=one"});
  // Delete once both watches have seen a bookmark: events keep coming after one.
  auto bothBookmarked = [&] {
    std::scoped_lock lock(seenJson.mu, seenProto.mu);
    return seenJson.bookmarks > 0 && seenProto.bookmarks > 0;
  };
  for (int i = 0; i < 120 && !bothBookmarked(); ++i) std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(bothBookmarked());
  DeleteOptions now;
  now.gracePeriodSeconds = 0;
  auto del = js->deletePod("proto-watch", "w0", now);
  EXPECT_TRUE(del.ok()) << del.error().message();
  jsonWatch.join();
  protoWatch.join();
  ASSERT_TRUE(jsonResult.ok()) << jsonResult.error().message();
  ASSERT_TRUE(protoResult.ok()) << protoResult.error().message();

  // ADDED, MODIFIED (the label), MODIFIED (deletionTimestamp set), DELETED.
  std::vector<api::WatchEventType> types;
  for (const auto& ev : seenProto.events) types.push_back(ev.type);
  EXPECT_EQ(types, (std::vector<api::WatchEventType>{api::WatchEventType::Added, api::WatchEventType::Modified,
                                                       api::WatchEventType::Modified, api::WatchEventType::Deleted}));
  ASSERT_EQ(seenProto.events.size(), seenJson.events.size());
  for (size_t i = 0; i < seenProto.events.size(); ++i) {
    EXPECT_EQ(seenProto.events[i].type, seenJson.events[i].type) << "event " << i;
    EXPECT_TRUE(seenProto.events[i].object == seenJson.events[i].object) << "event " << i;
  }
  if (seenProto.events.size() >= 2) {
    EXPECT_EQ(seenProto.events[1].object.metadata.labels["stage"], "one");
  }
  std::printf("bookmarks: json %d, protobuf %d\n", seenJson.bookmarks, seenProto.bookmarks);
}

TEST_F(RestProtobufIntegrationTest, BindAndErrorsEqualJson) {
  kubectl({"create", "namespace", "proto-bind"});
  kubectl({"create", "-f", "-"}, podYaml("proto-bind", "b0"));
  auto js = client(config());
  auto pb = client(protoConfig());
  auto pods = js->pods().list({.fieldSelector = "metadata.namespace=proto-bind"});
  ASSERT_TRUE(pods.ok()) << pods.error().message();
  ASSERT_EQ(pods->items.size(), 1u);

  api::Binding b;
  b.metadata.name = "b0";
  b.metadata.namespace_ = "proto-bind";
  b.metadata.uid = pods->items[0].metadata.uid;
  b.target.kind = "Node";
  b.target.apiVersion = "v1";
  b.target.name = "node-a";
  auto bound = pb->bind(b);
  ASSERT_TRUE(bound.ok()) << bound.error().message();
  pods = js->pods().list({.fieldSelector = "metadata.namespace=proto-bind"});
  ASSERT_TRUE(pods.ok()) << pods.error().message();
  EXPECT_EQ(pods->items[0].spec.nodeName, "node-a");

  // Bound elsewhere already: 409 Conflict, a protobuf Status in protobuf mode.
  b.target.name = "node-b";
  auto protoConflict = pb->bind(b);
  auto jsonConflict = js->bind(b);
  ASSERT_FALSE(protoConflict.ok());
  ASSERT_FALSE(jsonConflict.ok());
  EXPECT_EQ(protoConflict.error().code(), 409);
  EXPECT_EQ(protoConflict.error().reason(), "Conflict");
  EXPECT_NE(protoConflict.error().message().find("is already assigned to node \"node-a\""), std::string::npos)
      << protoConflict.error().message();
  expectSameError(protoConflict.error(), jsonConflict.error());
  // Again to node-a: reported as success in both modes (our earlier attempt landed).
  b.target.name = "node-a";
  EXPECT_TRUE(pb->bind(b).ok());
  EXPECT_TRUE(js->bind(b).ok());

  // A pod that does not exist: 404 NotFound.
  b.metadata.name = "no-such-pod";
  auto protoMissing = pb->bind(b);
  auto jsonMissing = js->bind(b);
  ASSERT_FALSE(protoMissing.ok());
  ASSERT_FALSE(jsonMissing.ok());
  EXPECT_TRUE(protoMissing.error().isNotFound()) << protoMissing.error().message();
  EXPECT_EQ(protoMissing.error().reason(), "NotFound");
  expectSameError(protoMissing.error(), jsonMissing.error());
  std::printf("missing pod: %d %s: %s\n", protoMissing.error().code(), protoMissing.error().reason().c_str(),
              protoMissing.error().message().c_str());

  // A namespace that does not exist: 404 NotFound for the binding's namespace.
  b.metadata.namespace_ = "no-such-namespace";
  protoMissing = pb->bind(b);
  jsonMissing = js->bind(b);
  ASSERT_FALSE(protoMissing.ok());
  ASSERT_FALSE(jsonMissing.ok());
  EXPECT_TRUE(protoMissing.error().isNotFound()) << protoMissing.error().message();
  expectSameError(protoMissing.error(), jsonMissing.error());

  // A UID precondition that fails: 409 with a message naming both UIDs.
  b.metadata.namespace_ = "proto-bind";
  b.metadata.name = "b0";
  b.metadata.uid = "00000000-0000-0000-0000-000000000000";
  b.target.name = "node-c";
  auto protoUid = pb->bind(b);
  auto jsonUid = js->bind(b);
  ASSERT_FALSE(protoUid.ok());
  ASSERT_FALSE(jsonUid.ok());
  expectSameError(protoUid.error(), jsonUid.error());
  std::printf("uid mismatch: %d %s: %s\n", protoUid.error().code(), protoUid.error().reason().c_str(),
              protoUid.error().message().c_str());
}

}  // namespace
}  // namespace ks::client::rest
