// HTTPExtender (upstream pkg/scheduler/extender_test.go: TestIsInterested, TestConvertToMetaVictims,
// TestConvertToVictims), plus the wire format and the HTTP calls against a test server: bodies with
// upstream's field names, nodeCacheCapable, connection reuse, error texts for 500 / bad JSON / an
// unknown node / a hang past httpTimeout / a refused connection.
#include "pkg/scheduler/extender/http_extender.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <mutex>
#include <thread>

#include "pkg/scheduler/backend/cache/snapshot.h"
#include "test/client/rest/test_http_server.h"
#include "test/support/wrappers.h"

namespace ks::extender {
namespace {

using client::rest::testing::ResponseWriter;
using client::rest::testing::TestHttpServer;
using client::rest::testing::TestRequest;
using json = nlohmann::json;
using ks::testing::MakeNode;
using ks::testing::MakePod;

std::unique_ptr<HTTPExtender> makeExtender(config::Extender cfg, CallObserver observer = {}) {
  if (cfg.urlPrefix.empty()) cfg.urlPrefix = "http://127.0.0.1:1";
  auto e = HTTPExtender::create(cfg, std::move(observer));
  EXPECT_TRUE(e.ok()) << e.error().message();
  return std::move(e).value();
}

TEST(IsInterested, Table) {
  config::Extender memCfg;
  memCfg.managedResources = {{"memory", false}};
  auto mem = makeExtender(memCfg);
  auto none = makeExtender({});
  struct Case {
    std::string label;
    HTTPExtender* extender;
    api::Pod pod;
    bool want;
  };
  const std::vector<Case> cases = {
      {"Empty managed resources", none.get(), api::Pod{}, true},
      {"Managed memory, empty resources", mem.get(), MakePod().container("app").obj(), false},
      {"Managed memory, container memory with Requests", mem.get(), MakePod().req({{"memory", "0"}}).obj(), true},
      {"Managed memory, container memory with Limits", mem.get(), MakePod().lim({{"memory", "0"}}).obj(), true},
      {"Managed memory, init container memory", mem.get(),
       MakePod().container("app").initReq({{"memory", "0"}}).obj(), true},
  };
  for (const auto& c : cases) EXPECT_EQ(c.extender->isInterested(c.pod), c.want) << c.label;
}

framework::PodInfoPtr podInfo(const std::string& name, const std::string& uid) {
  return framework::PodInfo::create(MakePod().name(name).uid(uid).ptr());
}

TEST(ConvertToMetaVictims, NumPDBViolationsIsTransferred) {
  std::map<std::string, framework::Victims> victims;
  victims["node1"] = {{podInfo("pod1", "uid1"), podInfo("pod3", "uid3")}, 1};
  victims["node2"] = {{podInfo("pod2", "uid2"), podInfo("pod4", "uid4")}, 2};
  const std::map<std::string, MetaVictims> want = {
      {"node1", {{{"uid1"}, {"uid3"}}, 1}},
      {"node2", {{{"uid2"}, {"uid4"}}, 2}},
  };
  EXPECT_EQ(HTTPExtender::convertToMetaVictims(victims), want);
}

TEST(ConvertToVictims, NumPDBViolationsIsTransferred) {
  std::vector<api::PodPtr> pods = {
      MakePod().name("pod1").uid("uid1").node("node1").ptr(), MakePod().name("pod2").uid("uid2").node("node2").ptr(),
      MakePod().name("pod3").uid("uid3").node("node1").ptr(), MakePod().name("pod4").uid("uid4").node("node2").ptr()};
  cache::Snapshot snapshot =
      cache::newSnapshot(pods, {MakeNode().name("node1").ptr(), MakeNode().name("node2").ptr()});
  auto ext = makeExtender({});
  const std::map<std::string, MetaVictims> meta = {
      {"node1", {{{"uid1"}, {"uid3"}}, 1}},
      {"node2", {{{"uid2"}, {"uid4"}}, 2}},
  };
  auto got = ext->convertToVictims(meta, snapshot);
  ASSERT_TRUE(got.ok()) << got.error().message();
  ASSERT_EQ(got->size(), 2u);
  auto names = [](const framework::Victims& v) {
    std::vector<std::string> out;
    for (const auto& p : v.pods) out.push_back(p->pod().metadata.name);
    return out;
  };
  EXPECT_EQ(names(got->at("node1")), (std::vector<std::string>{"pod1", "pod3"}));
  EXPECT_EQ(got->at("node1").numPDBViolations, 1);
  EXPECT_EQ(names(got->at("node2")), (std::vector<std::string>{"pod2", "pod4"}));
  EXPECT_EQ(got->at("node2").numPDBViolations, 2);

  // A victim the extender names that is not on the node.
  auto bad = ext->convertToVictims({{"node1", {{{"uid9"}}, 0}}}, snapshot);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(),
            "extender: http://127.0.0.1:1 claims to preempt pod (UID: &{uid9}) on node: node1, but the pod is "
            "not found on that node");
}

// ---- Over HTTP ----

std::vector<framework::NodeInfoPtr> nodeInfos(const std::vector<std::string>& names) {
  std::vector<framework::NodeInfoPtr> out;
  for (const auto& n : names) {
    auto ni = std::make_shared<framework::NodeInfo>();
    ni->setNode(MakeNode().name(n).ptr());
    out.push_back(ni);
  }
  return out;
}

// The verbs and errors of the calls an extender reports to its observer, in order.
class CallLog {
 public:
  CallObserver observer() {
    return [this](std::string_view verb, double, CallError e) {
      std::lock_guard lock(mu_);
      calls_.emplace_back(std::string(verb), e);
    };
  }
  std::vector<std::pair<std::string, CallError>> get() const {
    std::lock_guard lock(mu_);
    return calls_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<std::string, CallError>> calls_;
};

config::Extender verbs(const std::string& url) {
  config::Extender cfg;
  cfg.urlPrefix = url + "/scheduler/";
  cfg.filterVerb = "filter";
  cfg.prioritizeVerb = "prioritize";
  cfg.bindVerb = "bind";
  cfg.preemptVerb = "preempt";
  cfg.weight = 3;
  return cfg;
}

TEST(HTTPExtender, FilterSendsNodesAndReadsTheResult) {
  TestHttpServer server([](const TestRequest& req, ResponseWriter& w) {
    json args = json::parse(req.body);
    json names = json::array();
    for (const auto& n : args["Nodes"]["items"]) {
      if (n["metadata"]["name"] != "node2") names.push_back(n);
    }
    w.send(200, json{{"Nodes", {{"items", names}}},
                     {"FailedNodes", {{"node2", "no gpu"}}},
                     {"failedAndUnresolvableNodes", {{"node3", "gone"}}}}
                    .dump());
  });
  auto ext = makeExtender(verbs(server.url()));
  const api::Pod pod = MakePod().name("p").namespace_("ns").uid("u1").obj();
  auto r = ext->filter(pod, nodeInfos({"node1", "node2"}));
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->nodes.size(), 1u);
  EXPECT_EQ(r->nodes[0]->nodeName(), "node1");
  EXPECT_EQ(r->failedNodes, (framework::FailedNodesMap{{"node2", "no gpu"}}));
  // Go's decoder matches keys case-insensitively.
  EXPECT_EQ(r->failedAndUnresolvableNodes, (framework::FailedNodesMap{{"node3", "gone"}}));

  ASSERT_EQ(server.requestCount(), 1u);
  const TestRequest req = server.requests()[0];
  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.path, "/scheduler/filter");
  EXPECT_EQ(req.header("content-type"), "application/json");
  json args = json::parse(req.body);
  EXPECT_EQ(args["Pod"]["metadata"]["name"], "p");
  EXPECT_FALSE(args["Pod"].contains("kind"));
  EXPECT_TRUE(args["NodeNames"].is_null());
  EXPECT_EQ(args["Nodes"]["items"].size(), 2u);
}

TEST(HTTPExtender, NodeCacheCapableSendsNamesAndRejectsUnknownNames) {
  TestHttpServer server([](const TestRequest& req, ResponseWriter& w) {
    json args = json::parse(req.body);
    if (req.path == "/filter") {
      w.send(200, json{{"NodeNames", args["NodeNames"].size() == 2 ? json{"node2"} : json{"node9"}}}.dump());
    } else {
      w.send(200, json::array({{{"Host", "node1"}, {"Score", 4}}, {{"Host", "node2"}, {"Score", 11}}}).dump());
    }
  });
  config::Extender cfg = verbs(server.url());
  cfg.urlPrefix = server.url();
  cfg.nodeCacheCapable = true;
  auto ext = makeExtender(cfg);
  const api::Pod pod = MakePod().name("p").obj();
  auto r = ext->filter(pod, nodeInfos({"node1", "node2"}));
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->nodes.size(), 1u);
  EXPECT_EQ(r->nodes[0]->nodeName(), "node2");
  json args = json::parse(server.requests()[0].body);
  EXPECT_TRUE(args["Nodes"].is_null());
  EXPECT_EQ(args["NodeNames"], (json{"node1", "node2"}));

  auto unknown = ext->filter(pod, nodeInfos({"node1"}));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message(), "extender \"" + server.url() +
                                           "\" claims a filtered node \"node9\" which is not found in the input "
                                           "node list");

  // Scores are passed on as they come (a score above 10 too, as upstream), with the weight.
  auto scores = ext->prioritize(pod, nodeInfos({"node1", "node2"}));
  ASSERT_TRUE(scores.ok()) << scores.error().message();
  EXPECT_EQ(scores->weight, 3);
  EXPECT_EQ(scores->priorities, (framework::HostPriorityList{{"node1", 4}, {"node2", 11}}));
  // One kept-alive connection for the three calls.
  EXPECT_EQ(server.connectionCount(), 1u);
}

TEST(HTTPExtender, BindAndPreempt) {
  TestHttpServer server([](const TestRequest& req, ResponseWriter& w) {
    json args = json::parse(req.body);
    if (req.path == "/scheduler/bind") {
      w.send(200, args["Node"] == "bad" ? R"({"Error":"no capacity"})" : "{}");
      return;
    }
    // preempt: keep node1 only, with one more victim.
    json meta = json::object();
    if (args["NodeNameToMetaVictims"].is_object()) {
      meta["node1"] = {{"Pods", {{{"UID", "uid1"}}, {{"UID", "uid3"}}}}, {"NumPDBViolations", 1}};
    } else {
      meta["node1"] = {{"Pods", {{{"UID", args["NodeNameToVictims"]["node1"]["Pods"][0]["metadata"]["uid"]}}}},
                       {"NumPDBViolations", 0}};
    }
    w.send(200, json{{"NodeNameToMetaVictims", meta}}.dump());
  });
  auto ext = makeExtender(verbs(server.url()));
  ASSERT_TRUE(ext->bind({"p", "ns", "u1", "node1"}).ok());
  json bindArgs = json::parse(server.requests()[0].body);
  EXPECT_EQ(bindArgs, (json{{"PodName", "p"}, {"PodNamespace", "ns"}, {"PodUID", "u1"}, {"Node", "node1"}}));
  auto refused = ext->bind({"p", "ns", "u1", "bad"});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(), "no capacity");

  std::vector<api::PodPtr> pods = {MakePod().name("pod1").uid("uid1").node("node1").ptr(),
                                   MakePod().name("pod3").uid("uid3").node("node1").ptr(),
                                   MakePod().name("pod2").uid("uid2").node("node2").ptr()};
  cache::Snapshot snapshot =
      cache::newSnapshot(pods, {MakeNode().name("node1").ptr(), MakeNode().name("node2").ptr()});
  std::map<std::string, framework::Victims> victims;
  victims["node1"] = {{framework::PodInfo::create(pods[0])}, 0};
  victims["node2"] = {{framework::PodInfo::create(pods[2])}, 0};
  const api::Pod preemptor = MakePod().name("big").obj();
  auto r = ext->processPreemption(preemptor, victims, snapshot);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ(r->at("node1").pods.size(), 1u);

  config::Extender cacheCfg = verbs(server.url());
  cacheCfg.nodeCacheCapable = true;
  auto cacheExt = makeExtender(cacheCfg);
  r = cacheExt->processPreemption(preemptor, victims, snapshot);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->at("node1").pods.size(), 2u);
  EXPECT_EQ(r->at("node1").numPDBViolations, 1);
  json args = json::parse(server.requests().back().body);
  EXPECT_TRUE(args["NodeNameToVictims"].is_null());
  EXPECT_EQ(args["NodeNameToMetaVictims"]["node2"], (json{{"Pods", {{{"UID", "uid2"}}}}, {"NumPDBViolations", 0}}));

  config::Extender noPreempt = verbs(server.url());
  noPreempt.preemptVerb.clear();
  auto e2 = makeExtender(noPreempt);
  auto err = e2->processPreemption(preemptor, victims, snapshot);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.error().message(), "preempt verb is not defined for extender " + server.url() +
                                       "/scheduler/ but run into ProcessPreemption");
}

TEST(HTTPExtender, VerbsNotConfigured) {
  auto ext = makeExtender({});
  const api::Pod pod = MakePod().name("p").obj();
  auto f = ext->filter(pod, nodeInfos({"a", "b"}));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->nodes.size(), 2u);
  auto p = ext->prioritize(pod, nodeInfos({"a"}));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->weight, 0);
  EXPECT_EQ(p->priorities, (framework::HostPriorityList{{"a", 0}}));
  EXPECT_FALSE(ext->isBinder() || ext->isFilter() || ext->isPrioritizer() || ext->supportsPreemption());
  EXPECT_EQ(ext->bind({}).error().message(), "unexpected empty bindVerb in extender");
  EXPECT_EQ(ext->httpTimeout(), kDefaultExtenderTimeout);
}

TEST(HTTPExtender, Failures) {
  TestHttpServer server([](const TestRequest& req, ResponseWriter& w) {
    if (req.path == "/filter") {
      w.send(500, "boom");
    } else if (req.path == "/prioritize") {
      w.send(200, "{not json");
    } else if (req.path == "/bind") {
      std::this_thread::sleep_for(std::chrono::milliseconds(600));
      w.send(200, "{}");
    } else {
      w.send(200, R"({"Error":"extender says no"})");
    }
  });
  config::Extender cfg;
  cfg.urlPrefix = server.url();
  cfg.filterVerb = "filter";
  cfg.prioritizeVerb = "prioritize";
  cfg.bindVerb = "bind";
  cfg.httpTimeout = std::chrono::milliseconds(200);
  CallLog calls;
  auto ext = makeExtender(cfg, calls.observer());
  const api::Pod pod = MakePod().name("p").obj();
  auto f = ext->filter(pod, nodeInfos({"a"}));
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().message(), "failed filter with extender at URL " + server.url() + "/filter, code 500");
  auto p = ext->prioritize(pod, nodeInfos({"a"}));
  ASSERT_FALSE(p.ok());
  const auto start = std::chrono::steady_clock::now();
  auto b = ext->bind({"p", "ns", "u", "a"});
  ASSERT_FALSE(b.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(550));
  EXPECT_EQ(b.error().message(), "Post \"" + server.url() +
                                     "/bind\": context deadline exceeded (Client.Timeout exceeded while awaiting "
                                     "headers)");
  EXPECT_EQ(calls.get(), (std::vector<std::pair<std::string, CallError>>{{"filter", CallError::HttpStatus},
                                                                         {"prioritize", CallError::Decode},
                                                                         {"bind", CallError::Timeout}}));

  config::Extender down;
  down.urlPrefix = "http://127.0.0.1:1";
  down.filterVerb = "filter";
  auto d = makeExtender(down);
  auto fd = d->filter(pod, nodeInfos({"a"}));
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.error().message(),
            "Post \"http://127.0.0.1:1/filter\": dial tcp 127.0.0.1:1: connect: connection refused");
}

// httpTimeout bounds the whole call, as upstream's http.Client{Timeout}: an extender that keeps sending a
// byte now and then, of the head or of the body, is cut off at the timeout all the same, with Go's texts
// for the two cases (Client.Do's error before the head, the body reader's as the JSON decoder returns it).
TEST(HTTPExtender, HttpTimeoutBoundsTheWholeCallOfADrippingExtender) {
  TestHttpServer server([](const TestRequest& req, ResponseWriter& w) {
    const auto drip = [](const std::function<bool()>& send) {
      for (int i = 0; i < 40 && send(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    };
    if (req.path == "/filter") {  // the head, a header line every 50 ms
      w.raw("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n");
      drip([&] { return w.raw("X-Drip: 1\r\n"); });
    } else {  // a 200 head at once, then the body a byte every 50 ms
      w.start(200);
      w.chunk("[");
      drip([&] { return w.chunk(" "); });
    }
  });
  config::Extender cfg;
  cfg.urlPrefix = server.url();
  cfg.filterVerb = "filter";
  cfg.prioritizeVerb = "prioritize";
  cfg.httpTimeout = std::chrono::milliseconds(300);
  CallLog calls;
  auto ext = makeExtender(cfg, calls.observer());
  const api::Pod pod = MakePod().name("p").obj();

  auto start = std::chrono::steady_clock::now();
  auto f = ext->filter(pod, nodeInfos({"a"}));
  ASSERT_FALSE(f.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
  EXPECT_EQ(f.error().message(), "Post \"" + server.url() +
                                     "/filter\": context deadline exceeded (Client.Timeout exceeded while awaiting "
                                     "headers)");

  start = std::chrono::steady_clock::now();
  auto p = ext->prioritize(pod, nodeInfos({"a"}));
  ASSERT_FALSE(p.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
  EXPECT_EQ(p.error().message(),
            "context deadline exceeded (Client.Timeout or context cancellation while reading body)");
  EXPECT_EQ(calls.get(), (std::vector<std::pair<std::string, CallError>>{{"filter", CallError::Timeout},
                                                                         {"prioritize", CallError::Timeout}}));
}

TEST(HTTPExtender, ResultErrorField) {
  TestHttpServer server([](const TestRequest&, ResponseWriter& w) { w.send(200, R"({"Error":"extender says no"})"); });
  config::Extender cfg;
  cfg.urlPrefix = server.url();
  cfg.filterVerb = "filter";
  auto ext = makeExtender(cfg);
  auto f = ext->filter(MakePod().name("p").obj(), nodeInfos({"a"}));
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().message(), "extender says no");
}

TEST(HTTPExtender, CreateErrors) {
  config::Extender cfg;
  cfg.urlPrefix = "https://127.0.0.1:1";
  cfg.tlsConfig = config::ExtenderTLSConfig{};
  cfg.tlsConfig->caFile = "/nonexistent/ca.crt";
  auto e = HTTPExtender::create(cfg);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message(), "open /nonexistent/ca.crt: no such file or directory");
  cfg.tlsConfig->caFile.clear();
  cfg.tlsConfig->caData = "not a pem";
  cfg.tlsConfig->insecure = true;
  e = HTTPExtender::create(cfg);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message(), "specifying a root certificates file with the insecure flag is not allowed");
  cfg.urlPrefix = "ftp://x";
  cfg.tlsConfig.reset();
  EXPECT_FALSE(HTTPExtender::create(cfg).ok());
}

TEST(WireTypes, DecodeErrors) {
  EXPECT_EQ(decodeFilterResult("").error().message(), "EOF");
  EXPECT_EQ(decodeFilterResult(R"({"NodeNames":"x"})").error().message(),
            "json: cannot unmarshal string into Go struct field ExtenderFilterResult.NodeNames of type []string");
  EXPECT_EQ(decodeHostPriorityList(R"([{"Host":"a","Score":1.5}])").error().message(),
            "json: cannot unmarshal number 1.5 into Go struct field HostPriority.Score of type int64");
  auto nulls = decodeFilterResult(R"({"Nodes":null,"NodeNames":null,"Error":""})");
  ASSERT_TRUE(nulls.ok());
  EXPECT_FALSE(nulls->nodes.has_value());
  EXPECT_FALSE(nulls->nodeNames.has_value());
  auto empty = decodeFilterResult(R"({"NodeNames":[]})");
  ASSERT_TRUE(empty.ok());
  ASSERT_TRUE(empty->nodeNames.has_value());
  EXPECT_TRUE(empty->nodeNames->empty());
  EXPECT_EQ(*decodeBindingResult(R"({"error":"x"})"), "x");
}

}  // namespace
}  // namespace ks::extender
