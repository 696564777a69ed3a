// Differential test: upstream kube-scheduler v1.37.2 and kube-scheduler-cpp decide the same pods on the same
// cluster state (one real etcd + kube-apiserver, no kubelets); results, FitError messages and chosen nodes
// must agree.
//
// Per seed, a randomized cluster (cluster_generator.h) is created; then the upstream binary and our daemon
// run side by side, each serving its own schedulerName with the same plugin set. Each pending pod is created
// for upstream, decided (bound, or PodScheduled=False with a FailedScheduling event) and force-deleted; then
// the identical pod is created for ours, decided and deleted. Only one pending pod exists at a time, the
// victims of a pod that preempted are created again after it (with their start times), and both schedulers see each delete and create
// before the next pending pod (on the same pod watch), so both decide on identical state. Upstream breaks score ties by the order its parallel Filter happened to find the nodes in, so its
// node is checked against our scoring instead of our node: `kube-scheduler-cpp simulate --explain -o json`
// on a dump of the cluster plus the pending pod must rank upstream's node (and the node our daemon chose)
// among its highest totals.
//
// DRA: each scheduler has a device world of its own (cluster_generator.h): its copy of a pending pod uses its
// own ResourceClaims, of its own classes and driver. All claims are created before the schedulers start
// (a claim created just before its pod could still be missing from a scheduler's claim informer when the pod
// arrives) and never deleted, so allocations accumulate identically on both sides (where the schedulers break
// a tie differently, our claims get upstream's allocation: alignClaims()). `simulate` gets the claims as they
// were before the pod's decision: the dump's, updated after each decision. Messages are compared side-neutral
// (sideNeutral()).
//
// Environment: KS_DIFF_SEEDS (default "1,2"), KS_DIFF_PODS (pending pods per seed, default 100),
// KS_DIFF_KEEP=1 keeps the work dir (configs, scheduler logs, cluster dump) also on success,
// KS_DIFF_VERBOSE=1 prints one line per pod, KS_DIFF_DRA=heavy puts devices on most nodes and claims on most
// pods, KS_DIFF_EXTENDER=1 / 0 puts the test's extender in the loop on every seed / on none (default: on the
// seeds of kExtenderSeeds), KS_CONTROL_PLANE_BIN (the bin dir of `controlplane.sh build`,
// with kube-scheduler; built when unset), KS_DIFF_OUR_BINARY (another kube-scheduler-cpp than this build's).

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test/integration/differential/cluster_generator.h"
#include "test/integration/harness/api_client.h"
#include "test/integration/harness/control_plane.h"
#include "test/integration/harness/extender_server.h"
#include "test/integration/harness/objects.h"
#include "test/integration/harness/process.h"

namespace ks::integration {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// The daemon and `simulate`: this build's, or another one (a release build, an older commit) from
// KS_DIFF_OUR_BINARY.
std::string ourBinary() {
  const char* env = std::getenv("KS_DIFF_OUR_BINARY");
  return env != nullptr && *env != '\0' ? env : KS_SCHEDULER_BINARY;
}

constexpr const char* kUpstreamName = "upstream-scheduler";
constexpr const char* kOurName = "kube-scheduler-cpp";

std::vector<uint32_t> seedsFromEnv() {
  const char* env = std::getenv("KS_DIFF_SEEDS");
  std::string s = env != nullptr && *env != '\0' ? env : "1,2";
  std::vector<uint32_t> seeds;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) seeds.push_back(static_cast<uint32_t>(std::stoul(item)));
  }
  return seeds;
}

int podsFromEnv() {
  const char* env = std::getenv("KS_DIFF_PODS");
  return env != nullptr && *env != '\0' ? std::atoi(env) : 100;
}

// The seeds that run with the extender when KS_DIFF_EXTENDER is unset.
const std::set<uint32_t> kExtenderSeeds = {2};

bool extenderOn(uint32_t seed) {
  const char* env = std::getenv("KS_DIFF_EXTENDER");
  if (env != nullptr && *env != '\0') return std::string(env) == "1";
  return kExtenderSeeds.count(seed) > 0;
}

// The test extender's verdict on one pod and node, from 64-bit FNV-1a hashes of "<pod>" and "<pod>/<node>":
// for most pods about one node in eight is rejected (resolvable: preemption may help) and one in sixteen
// unresolvably; for a "picky" pod in four, half and a quarter of the nodes (so that some pods fail on the
// extender alone, and preemption runs after it). The score is 0-10.
struct ExtenderVerdict {
  bool failed = false;
  bool unresolvable = false;
  int64_t score = 0;
};

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

ExtenderVerdict extenderVerdict(const std::string& pod, const std::string& node) {
  const bool picky = fnv1a(pod) % 4 == 0;
  const uint64_t h = fnv1a(pod + "/" + node);
  ExtenderVerdict v;
  v.failed = h % 16 < (picky ? 8u : 2u);
  v.unresolvable = !v.failed && h % 16 < (picky ? 12u : 3u);
  v.score = static_cast<int64_t>((h >> 8) % 11);
  return v;
}

// Upstream's ExtenderArgs / ExtenderFilterResult / HostPriorityList (Go field names): node names from
// NodeNames (nodeCacheCapable) or Nodes.items, answered in the same form.
json extenderAnswer(const std::string& verb, const json& args) {
  if (args.is_discarded() || !args.is_object()) return {{"Error", "unparsable arguments"}};
  const json pod = args.value("Pod", json::object());
  const std::string podName =
      pod.contains("metadata") ? pod["metadata"].value("namespace", "") + "/" + pod["metadata"].value("name", "") : "";
  const bool byName = args.contains("NodeNames") && args["NodeNames"].is_array();
  std::vector<json> nodes;  // node names, or node objects
  if (byName) {
    for (const auto& n : args["NodeNames"]) nodes.push_back(n);
  } else if (args.contains("Nodes") && args["Nodes"].is_object()) {
    for (const auto& n : args["Nodes"].value("items", json::array())) nodes.push_back(n);
  }
  auto nameOf = [&](const json& n) {
    return byName ? n.get<std::string>() : n["metadata"].value("name", "");
  };
  if (verb == "prioritize") {
    json out = json::array();
    for (const auto& n : nodes) {
      out.push_back({{"Host", nameOf(n)}, {"Score", extenderVerdict(podName, nameOf(n)).score}});
    }
    return out;
  }
  if (verb != "filter") return {{"Error", "unknown verb " + verb}};
  json keep = json::array();
  json failed = json::object();
  json unresolvable = json::object();
  for (const auto& n : nodes) {
    const std::string name = nameOf(n);
    const ExtenderVerdict v = extenderVerdict(podName, name);
    if (v.failed) {
      failed[name] = "node(s) out of widgets (test extender)";
    } else if (v.unresolvable) {
      unresolvable[name] = "node(s) quarantined (test extender)";
    } else {
      keep.push_back(n);
    }
  }
  json result = {{"FailedNodes", failed}, {"FailedAndUnresolvableNodes", unresolvable}, {"Error", ""}};
  if (byName) {
    result["NodeNames"] = keep;
  } else {
    result["Nodes"] = {{"metadata", json::object()}, {"items", keep}};
  }
  return result;
}

// The `extenders:` entry of `seed` for the server at `url`.
std::string extenderYaml(const std::string& url, uint32_t seed) {
  return "extenders:\n"
         "  - urlPrefix: " + url + "\n"
         "    filterVerb: filter\n"
         "    prioritizeVerb: prioritize\n"
         "    weight: " + std::to_string(1 + seed % 5) + "\n"
         "    nodeCacheCapable: " + (seed % 2 == 0 ? "true" : "false") + "\n";
}

std::string schedulerConfig(const std::string& kubeconfig, const std::string& schedulerName,
                            const differential::ProfileVariant& variant, const std::string& extenders) {
  return "apiVersion: kubescheduler.config.k8s.io/v1\n"
         "kind: KubeSchedulerConfiguration\n"
         "clientConnection:\n"
         "  kubeconfig: " +
         kubeconfig +
         "\n"
         "  qps: 500\n"
         "  burst: 1000\n"
         "leaderElection:\n"
         "  leaderElect: false\n"
         "percentageOfNodesToScore: 100\n" +
         extenders +
         "profiles:\n"
         "  - schedulerName: " +
         schedulerName + "\n" + disabledPluginsYaml() + variant.plugins + variant.pluginConfig;
}

// What one scheduler did with one pod.
struct Decision {
  std::string result;   // Scheduled, or the PodScheduled=False reason (Unschedulable, ...), or Timeout
  std::string node;     // when Scheduled
  std::string message;  // the PodScheduled condition's message
  std::string event;    // the Scheduled / FailedScheduling event, describeEvent()
  json stored;          // the pod as the API server stored it (defaults and admission applied)
  int restoredVictims = 0;  // bound pods its preemption deleted, created again afterwards
};

// Our scoring of the pod, from `simulate --explain -o json`.
struct Scores {
  std::string error;  // simulate failed
  std::string result;
  std::string node;
  std::map<std::string, int64_t> total;
  std::map<std::string, std::map<std::string, int64_t>> perPlugin;
  std::set<std::string> best;  // the nodes with the highest total (the only feasible node when unscored)
  int64_t bestTotal = 0;
};

struct Tally {
  int pods = 0;
  int agreements = 0;
  std::map<std::string, int> byClass;  // disagreement class -> pods
  // How strong the comparison was: upstream's results, and whether our best total singled out one node.
  int scheduled = 0;
  int unschedulable = 0;
  int oneFeasible = 0;  // scheduled, nothing to score
  int uniqueBest = 0;   // scheduled, several nodes scored, one best
  int tiedBest = 0;     // scheduled, several nodes share the best total
  int preempting = 0;   // upstream evicted pods for it (restored before ours decided)
  int withClaims = 0;   // pods with ResourceClaims ...
  int withClaimsScheduled = 0;  // ... that upstream scheduled
};

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// "Warning FailedScheduling, action Scheduling, by <scheduler>: <message>", with the scheduler's own name and
// the chosen node replaced so that both schedulers' events compare equal when they say the same.
std::string describeEvent(const json& e, const std::string& schedulerName, const std::string& node) {
  std::string s = e.value("type", "") + " " + e.value("reason", "") + ", action " + e.value("action", "") +
                  ", by " + e.value("reportingComponent", "") + ": " + e.value("message", "");
  s = replaceAll(std::move(s), schedulerName, "<scheduler>");
  return replaceAll(std::move(s), " to " + node, " to <node>");
}

// "preemption: [e1, e2, ...]" with its errors sorted: upstream aggregates the errors of its parallel dry runs
// in the order they happened to finish (its condition and event of one attempt can differ), e.g. "expected
// at least one victim pod on node ..." for nodes only an extender rejected (resolvable).
std::string sortedPreemptionErrors(std::string s) {
  const std::string open = "preemption: [";
  const size_t begin = s.find(open);
  const size_t end = s.rfind(']');
  if (begin == std::string::npos || end == std::string::npos || end < begin + open.size()) return s;
  std::vector<std::string> errors;
  const std::string list = s.substr(begin + open.size(), end - begin - open.size());
  for (size_t from = 0;;) {
    const size_t comma = list.find(", ", from);
    errors.push_back(list.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (comma == std::string::npos) break;
    from = comma + 2;
  }
  std::sort(errors.begin(), errors.end());
  std::string joined;
  for (const auto& e : errors) joined += (joined.empty() ? "" : ", ") + e;
  return s.substr(0, begin + open.size()) + joined + s.substr(end);
}

// A message with what differs between the two device worlds replaced: the driver, the classes' and claims'
// side ("s1-up-gpu", "p-3-c0-up"). FitError texts name none of them; errors from the allocator (an
// allocationMode All request whose constraint fails, ...) name the claim and the device. Such an error also
// names the node it happened on, whichever the parallel Filter reached first: `anyNode` masks that node's
// pool and device.
std::string sideNeutral(const std::string& message, const std::string& side, bool anyNode) {
  static const std::regex claim(R"((p-[0-9]+-c[0-9]+)-(up|ours)\b)");
  static const std::regex classPrefix(R"(\b(s[0-9]+)-(up|ours)-)");
  static const std::regex device(R"(<driver>/[^/ ]+/[^/ ]+)");
  std::string s = replaceAll(message, side + ".example.com", "<driver>");
  s = std::regex_replace(s, claim, "$1-<side>");
  s = std::regex_replace(s, classPrefix, "$1-<side>-");
  s = anyNode ? std::regex_replace(s, device, "<driver>/<pool>/<device>") : s;
  return sortedPreemptionErrors(std::move(s));
}

std::string describeDecision(const Decision& d) {
  std::string s = d.result == "Scheduled" ? "Scheduled on " + d.node : d.result;
  if (d.result != "Scheduled") s += "\n    condition: " + quoted(d.message);
  s += "\n    event:     " + d.event;
  return s;
}

std::string describeScores(const Scores& sc, const std::vector<std::string>& nodes) {
  if (!sc.error.empty()) return "simulate failed: " + sc.error;
  std::string s = "simulate: " + sc.result + (sc.node.empty() ? "" : " on " + sc.node);
  if (sc.total.empty()) return s + " (no scores: at most one feasible node)";
  s += "; best total " + std::to_string(sc.bestTotal) + " on";
  for (const auto& n : sc.best) s += " " + n;
  for (const auto& n : nodes) {
    if (n.empty()) continue;
    auto t = sc.total.find(n);
    s += "\n    " + n + ": ";
    if (t == sc.total.end()) {
      s += "not feasible for ours";
      continue;
    }
    s += "total " + std::to_string(t->second) + " {";
    bool first = true;
    if (auto plugins = sc.perPlugin.find(n); plugins != sc.perPlugin.end()) {
      for (const auto& [plugin, score] : plugins->second) {
        s += (first ? "" : ", ") + plugin + ": " + std::to_string(score);
        first = false;
      }
    }
    s += "}";
  }
  return s;
}

class DifferentialTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto bin = ControlPlane::binDir();
    ASSERT_TRUE(bin.ok()) << bin.error().message();
    upstreamBinary_ = *bin + "/kube-scheduler";
    ASSERT_TRUE(std::filesystem::exists(upstreamBinary_))
        << upstreamBinary_ << " is missing: run test/integration/controlplane.sh build";
    auto started = ControlPlane::start();
    ASSERT_TRUE(started.ok()) << started.error().message();
    cp_ = std::move(started).value();
    auto api = ApiClient::create(cp_->kubeconfigPath());
    ASSERT_TRUE(api.ok()) << api.error().message();
    api_ = std::move(api).value();
    char tmpl[] = "/tmp/ks-differential-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }

  void TearDown() override {
    upstream_.reset();
    ours_.reset();
    extender_.reset();
    const char* keep = std::getenv("KS_DIFF_KEEP");
    if (HasFailure() || (keep != nullptr && std::string(keep) == "1")) {
      std::printf("differential: work dir (configs, scheduler logs, cluster dumps) kept in %s\n",
                  dir_.c_str());
    } else {
      std::filesystem::remove_all(dir_);
    }
  }

  std::string logs() const {
    std::string s;
    if (upstream_) s += "---- upstream kube-scheduler log (tail)\n" + tail(upstream_->log()) + "\n";
    if (ours_) s += "---- kube-scheduler-cpp log (tail)\n" + tail(ours_->log()) + "\n";
    return s;
  }

  // POSTs `object` to `path`; fails the test on anything but 201.
  json create(const std::string& path, const json& object) {
    auto r = api_->post(path, object);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
    if (!r.ok()) return nullptr;
    EXPECT_EQ(r->status, 201) << "POST " << path << " " << object.dump() << "\n-> " << r->body.dump();
    return r->status == 201 ? r->body : json(nullptr);
  }

  std::string podPath(const std::string& ns, const std::string& name = "") const {
    return "/api/v1/namespaces/" + ns + "/pods" + (name.empty() ? "" : "/" + name);
  }

  static std::string claimPath(const std::string& ns, const std::string& name = "") {
    return "/apis/resource.k8s.io/v1/namespaces/" + ns + "/resourceclaims" + (name.empty() ? "" : "/" + name);
  }

  // Where the two schedulers broke a score tie differently (or disagreed), their device worlds would drift
  // apart: our claims of the pod get upstream's allocation instead (its devices, ours' driver), and our
  // scheduler must have seen that before the next pod. Its claim informer delivers in resourceVersion
  // order, so a claim created after the rewrite is a barrier: once a pod using it has been decided, the
  // rewrite was seen.
  void alignClaims(const differential::PendingPod& upPod, const differential::PendingPod& ourPod, uint32_t seed,
                   int index) {
    bool rewritten = false;
    // What decides the devices in use: the results (shareIDs are random) and the node.
    auto devicesOf = [](json allocation) {
      if (allocation.is_null()) return allocation;
      allocation.erase("allocationTimestamp");
      for (auto& r : allocation["devices"]["results"]) r.erase("shareID");
      return allocation;
    };
    for (size_t k = 0; k < upPod.claims.size(); ++k) {
      const std::string ns = upPod.claims[k]["metadata"]["namespace"];
      auto up = api_->get(claimPath(ns, upPod.claims[k]["metadata"]["name"]));
      const std::string ourPath = claimPath(ns, ourPod.claims[k]["metadata"]["name"]);
      auto ours = api_->get(ourPath);
      ASSERT_TRUE(up.ok() && up->status == 200 && ours.ok() && ours->status == 200);
      json want = up->body.contains("status") ? up->body["status"].value("allocation", json(nullptr)) : json(nullptr);
      if (!want.is_null()) {
        for (auto& r : want["devices"]["results"]) r["driver"] = "ours.example.com";
      }
      const json have =
          ours->body.contains("status") ? ours->body["status"].value("allocation", json(nullptr)) : json(nullptr);
      if (devicesOf(want) == devicesOf(have)) continue;
      // An allocation cannot be changed, only removed (with the reservations) and set again.
      std::vector<json> patches;
      if (!have.is_null()) patches.push_back({{"status", {{"reservedFor", nullptr}, {"allocation", nullptr}}}});
      if (!want.is_null()) patches.push_back({{"status", {{"allocation", want}}}});
      for (const json& patch : patches) {
        auto r = api_->patch(ourPath + "/status", patch);
        ASSERT_TRUE(r.ok() && r->status == 200) << (r.ok() ? r->body.dump() : r.error().message());
      }
      rewritten = true;
    }
    if (!rewritten) return;
    ++alignments_;
    const std::string ns = upPod.claims[0]["metadata"]["namespace"];
    const std::string name = "barrier-" + std::to_string(index);
    json claim = {{"apiVersion", "resource.k8s.io/v1"},
                  {"kind", "ResourceClaim"},
                  {"metadata", {{"name", name}, {"namespace", ns}}},
                  {"spec",
                   {{"devices",
                     {{"requests",
                       {{{"name", "none"},
                         {"exactly",
                          {{"deviceClassName", "s" + std::to_string(seed) + "-ours-gpu"},
                           {"selectors", {{{"cel", {{"expression", "false"}}}}}}}}}}}}}}}};
    claimState_[ns + "/" + name] = create(claimPath(ns), claim);
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}, {"namespace", ns}}},
                {"spec",
                 {{"terminationGracePeriodSeconds", 0},
                  {"resourceClaims", {{{"name", "none"}, {"resourceClaimName", name}}}},
                  {"containers", {{{"name", "c"}, {"image", "registry.k8s.io/pause:3.10"}}}}}}};
    const Decision d = decide(pod, kOurName);
    ASSERT_NE(d.result, "Timeout") << "the barrier pod after rewriting our claims was not decided\n" << logs();
    if (verbose_) {
      std::printf("differential: p-%d: our claims set to upstream's allocation (barrier pod: %s)\n", index,
                  d.result.c_str());
    }
  }

  // Takes the current state of `claims` (their allocations) into what `simulate` sees.
  void refreshClaims(const std::vector<json>& claims) {
    for (const json& c : claims) {
      const std::string ns = c["metadata"]["namespace"];
      const std::string name = c["metadata"]["name"];
      auto g = api_->get(claimPath(ns, name));
      ASSERT_TRUE(g.ok() && g->status == 200) << (g.ok() ? g->body.dump() : g.error().message());
      claimState_[ns + "/" + name] = g->body;
    }
  }

  // Force-deletes the pod (no kubelet would ever confirm a graceful delete) and waits until it is gone.
  void deletePod(const std::string& ns, const std::string& name) {
    auto r = api_->del(podPath(ns, name), {{"gracePeriodSeconds", 0}});
    ASSERT_TRUE(r.ok()) << r.error().message();
    ASSERT_TRUE(r->status == 200 || r->status == 404) << r->body.dump();
    ASSERT_TRUE(waitFor(
        [&] {
          auto g = api_->get(podPath(ns, name));
          return g.ok() && g->status == 404;
        },
        30s, 10ms))
        << "pod " << ns << "/" << name << " still exists 30 s after a forced delete";
  }

  // Creates `pod` for `schedulerName`, waits for the decision, records it and deletes the pod.
  Decision decide(json pod, const std::string& schedulerName) {
    Decision d;
    pod["spec"]["schedulerName"] = schedulerName;
    const std::string ns = pod["metadata"]["namespace"];
    const std::string name = pod["metadata"]["name"];
    d.stored = create(podPath(ns), pod);
    if (d.stored.is_null()) {
      d.result = "CreateFailed";
      return d;
    }
    const std::string uid = d.stored["metadata"]["uid"];
    bool nominated = false;  // unschedulable, but preemption is evicting pods for it
    const bool decided = waitFor(
        [&] {
          auto g = api_->get(podPath(ns, name));
          if (!g.ok() || g->status != 200) return false;
          const json& p = g->body;
          if (const std::string node = p["spec"].value("nodeName", ""); !node.empty()) {
            d.result = "Scheduled";
            d.node = node;
            return true;
          }
          if (!p.contains("status") || !p["status"].contains("conditions")) return false;
          for (const auto& c : p["status"]["conditions"]) {
            if (c.value("type", "") == "PodScheduled" && c.value("status", "") == "False") {
              d.result = c.value("reason", "");
              d.message = c.value("message", "");
              nominated = !p["status"].value("nominatedNodeName", "").empty();
              return true;
            }
          }
          return false;
        },
        30s, 10ms);
    if (decided && nominated) {
      // Preemption nominated a node and evicts there: the pod is decided once it binds (the condition was
      // written first, and how far each scheduler got when we looked is a race). Not bound within 10 s: it
      // stays unschedulable.
      waitFor(
          [&] {
            auto g = api_->get(podPath(ns, name));
            if (!g.ok() || g->status != 200) return false;
            const std::string node = g->body["spec"].value("nodeName", "");
            if (node.empty()) return false;
            d = Decision{"Scheduled", node, "", "", d.stored};
            return true;
          },
          10s, 10ms);
    }
    if (!decided) {
      d.result = "Timeout";
    } else {
      // The event of the decision (events.k8s.io/v1, read through core/v1: note -> message,
      // reportingController -> reportingComponent).
      const std::string reason = d.result == "Scheduled" ? "Scheduled" : "FailedScheduling";
      const std::string events = "/api/v1/namespaces/" + ns + "/events?fieldSelector=involvedObject.uid%3D" +
                                 uid + ",reason%3D" + reason;
      // Events are named <pod>.<hex timestamp>: the list's first is the first attempt's.
      json items = json::array();
      waitFor(
          [&] {
            auto g = api_->get(events);
            if (!g.ok() || g->status != 200 || g->body["items"].empty()) return false;
            items = g->body["items"];
            d.event = describeEvent(items[0], schedulerName, d.node);
            return true;
          },
          10s, 10ms);
      if (d.event.empty()) d.event = "<no " + reason + " event within 10 s>";
      if (nominated && d.result != "Scheduled") d.message = firstAttemptMessage(d.message, items);
    }
    deletePod(ns, name);
    d.restoredVictims = restoreEvictedPods(ns, nominated);
    return d;
  }

  // A pod that preempted but did not bind (a victim it waits for is terminating, and no kubelet ends that)
  // was retried when the other victims were gone, and each retry rewrote its condition (upstream's API
  // dispatcher may even merge the first status patch into the retry's): which one we read is a race. Both
  // schedulers are compared on their first attempt, as the event is: the message of the first
  // FailedScheduling event, provided the condition we read is one of the attempts' (one of the events).
  static std::string firstAttemptMessage(const std::string& condition, const json& events) {
    for (const auto& e : events) {
      if (e.value("message", "") == condition) return events[0].value("message", "");
    }
    return condition;
  }

  // A pod that preempted left its victims deleted. The other scheduler (and `simulate`, which reads the
  // dump) must decide on the cluster as it was, so every bound pod of the dump that is gone (or being
  // deleted, which the dump's pods were not) is created again, on its node, before the next decision.
  // Each scheduler sees the deletes and creates on its pod watch before the next pending pod.
  // A nominated pod's victims are evicted asynchronously: wait (at most 10 s) until they are.
  int restoreEvictedPods(const std::string& ns, bool expectVictims) {
    std::vector<const json*> missing;
    auto findMissing = [&] {
      missing.clear();
      auto list = api_->get(podPath(ns));
      if (!list.ok() || list->status != 200) return false;
      std::set<std::string> present;
      for (const auto& p : list->body["items"]) {
        if (!p["metadata"].contains("deletionTimestamp")) present.insert(p["metadata"]["name"].get<std::string>());
      }
      for (const auto& item : dumpItems_) {
        if (item.value("kind", "") != "Pod" || item["metadata"].value("namespace", "") != ns) continue;
        if (item["spec"].value("nodeName", "").empty() || item["metadata"].contains("deletionTimestamp")) continue;
        if (present.count(item["metadata"]["name"].get<std::string>()) == 0) missing.push_back(&item);
      }
      return true;
    };
    if (expectVictims) {
      waitFor([&] { return findMissing() && !missing.empty(); }, 10s, 10ms);
    } else {
      EXPECT_TRUE(findMissing()) << "listing the pods of " << ns << " failed";
    }
    int restored = 0;
    for (const json* it : missing) {
      const json& item = *it;
      const std::string name = item["metadata"]["name"];
      deletePod(ns, name);  // a victim still terminating
      json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}, {"namespace", ns}}}};
      for (const char* key : {"labels", "annotations", "ownerReferences"}) {
        if (item["metadata"].contains(key)) pod["metadata"][key] = item["metadata"][key];
      }
      pod["spec"] = item["spec"];
      create(podPath(ns), pod);
      // Its start time too: preemption ranks the victims of one priority by it.
      if (const std::string started = item["status"].value("startTime", ""); !started.empty()) {
        auto r = api_->patch(podPath(ns, name) + "/status", {{"status", {{"startTime", started}}}});
        EXPECT_TRUE(r.ok() && r->status == 200) << (r.ok() ? r->body.dump() : r.error().message());
      }
      ++restored;
    }
    return restored;
  }

  // Our scores for `pod` (as stored, for our scheduler) on the dumped cluster.
  Scores simulate(const std::string& configPath, const json& pod, int index) {
    Scores sc;
    json items = dumpItems_;
    for (const auto& [key, claim] : claimState_) items.push_back(claim);
    json p = pod;
    p["metadata"].erase("resourceVersion");
    items.push_back(p);
    const std::string clusterPath = dir_ + "/cluster-pending.json";
    std::ofstream(clusterPath) << listOf(std::vector<json>(items.begin(), items.end())).dump();
    auto out = runProcess({ourBinary(), "simulate", "--config", configPath, "--cluster", clusterPath,
                           "--explain", "-o", "json"},
                          {}, {}, 120s);
    if (!out.ok()) {
      sc.error = out.error().message();
      return sc;
    }
    if (out->exitCode != 0) {
      sc.error = "exit " + std::to_string(out->exitCode) + ": " + out->err;
      std::filesystem::copy_file(clusterPath, dir_ + "/cluster-failed-" + std::to_string(index) + ".json",
                                 std::filesystem::copy_options::overwrite_existing);
      return sc;
    }
    const json result = json::parse(out->out, nullptr, false);
    if (result.is_discarded() || !result.contains("pods")) {
      sc.error = "unparsable output: " + tail(out->out, 500);
      return sc;
    }
    for (const auto& r : result["pods"]) {
      if (r.value("name", "") != pod["metadata"]["name"]) continue;
      sc.result = r.value("result", "");
      sc.node = r.value("node", "");
      const json totals = r.value("totalScores", json::object());
      for (const auto& [node, total] : totals.items()) sc.total[node] = total.get<int64_t>();
      const json scores = r.value("scores", json::object());
      for (const auto& [node, plugins] : scores.items()) {
        for (const auto& [plugin, score] : plugins.items()) sc.perPlugin[node][plugin] = score.get<int64_t>();
      }
    }
    if (sc.result.empty()) sc.error = "the pod is not in simulate's output";
    if (!sc.total.empty()) {
      sc.bestTotal = sc.total.begin()->second;
      for (const auto& [node, total] : sc.total) sc.bestTotal = std::max(sc.bestTotal, total);
      for (const auto& [node, total] : sc.total) {
        if (total == sc.bestTotal) sc.best.insert(node);
      }
    } else if (sc.result == "Scheduled") {
      sc.best.insert(sc.node);  // the only feasible node: upstream does not score then either
    }
    return sc;
  }

  // Starts both schedulers on the current cluster and waits until each has decided a first pod.
  void startSchedulers(const std::string& ns, const std::string& upstreamConfig,
                       const std::string& ourConfig) {
    upstream_ = std::make_unique<Process>(
        std::vector<std::string>{upstreamBinary_, "--config=" + upstreamConfig, "--secure-port=0", "--v=2"},
        dir_ + "/" + ns + "-upstream.log");
    ours_ = std::make_unique<Process>(
        std::vector<std::string>{ourBinary(), "--config=" + ourConfig, "--bind-address=127.0.0.1",
                                 "--secure-port=" + std::to_string(freePort()), "-v=2"},
        dir_ + "/" + ns + "-ours.log");
    ASSERT_TRUE(upstream_->started() && ours_->started()) << logs();
    const json warmup = {{"apiVersion", "v1"},
                         {"kind", "Pod"},
                         {"metadata", {{"name", "warmup"}, {"namespace", ns}}},
                         {"spec",
                          {{"terminationGracePeriodSeconds", 0},
                           {"tolerations", {{{"operator", "Exists"}}}},
                           {"containers", {{{"name", "c"}, {"image", "registry.k8s.io/pause:3.10"}}}}}}};
    for (const char* name : {kUpstreamName, kOurName}) {
      const Decision d = decide(warmup, name);
      ASSERT_NE(d.result, "Timeout") << name << " decided nothing within 30 s\n" << logs();
      ASSERT_TRUE(upstream_->running() && ours_->running()) << logs();
    }
  }

  // One seed: cluster, both schedulers, `pods` pending pods compared; adds to `tally`.
  void runSeed(uint32_t seed, int pods, Tally& tally) {
    const std::string ns = "diff-s" + std::to_string(seed);
    differential::ClusterGenerator gen(seed, ns, draHeavy_);
    const differential::GeneratedCluster cluster = gen.cluster();
    bool created = true;  // create() reports what failed; stop before comparing on a wrong cluster
    auto createOk = [&](const std::string& path, const json& object) {
      created = !create(path, object).is_null() && created;
    };
    createOk("/api/v1/namespaces",
             {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
    for (const auto& pc : cluster.priorityClasses) createOk("/apis/scheduling.k8s.io/v1/priorityclasses", pc);
    for (const auto& rc : cluster.runtimeClasses) createOk("/apis/node.k8s.io/v1/runtimeclasses", rc);
    std::vector<std::string> nodeNames;
    for (const auto& n : cluster.nodes) {
      createOk("/api/v1/nodes", n);
      nodeNames.push_back(n["metadata"]["name"]);
    }
    for (const auto& p : cluster.boundPods) createOk(podPath(ns), p);
    for (const auto& s : cluster.services) createOk("/api/v1/namespaces/" + ns + "/services", s);
    for (const auto& c : cluster.deviceClasses) createOk("/apis/resource.k8s.io/v1/deviceclasses", c);
    for (const auto& s : cluster.resourceSlices) createOk("/apis/resource.k8s.io/v1/resourceslices", s);
    // The pending pods, drawn now: their claims (both sides') must exist before the schedulers start.
    std::vector<differential::PendingPod> pending;
    for (int i = 0; i < pods; ++i) pending.push_back(gen.pendingPod());
    for (const auto& p : pending) {
      for (const std::string& side : differential::kDraSides) {
        for (const auto& c : differential::forScheduler(p, seed, side).claims) createOk(claimPath(ns), c);
      }
    }
    // Status, set after creating the pods: start times, and the terminal phases.
    for (const auto& [name, startTime] : cluster.startTimes) {
      json status = {{"startTime", startTime}};
      if (auto t = cluster.terminalPhases.find(name); t != cluster.terminalPhases.end()) status["phase"] = t->second;
      auto r = api_->patch(podPath(ns, name) + "/status", {{"status", status}});
      ASSERT_TRUE(r.ok() && r->status == 200) << (r.ok() ? r->body.dump() : r.error().message());
    }
    for (const auto& name : cluster.terminating) {
      auto r = api_->del(podPath(ns, name), {{"gracePeriodSeconds", 3600}});
      ASSERT_TRUE(r.ok() && r->status == 200) << (r.ok() ? r->body.dump() : r.error().message());
    }
    ASSERT_TRUE(created) << "seed " << seed << ": the cluster could not be created";

    // What `simulate` reads; the state stays like this (pending pods come and go one at a time).
    auto dump =
        cp_->kubectl({"get", "nodes,pods,pv,pvc,storageclasses,csinodes,namespaces,pdb,services,replicationcontrollers,"
                     "replicasets,statefulsets,deviceclasses,resourceslices,resourceclaims", "-A", "-o", "json"});
    ASSERT_TRUE(dump.ok()) << dump.error().message();
    dumpItems_ = json::array();
    claimState_.clear();
    json dumped = json::parse(*dump);
    for (auto& item : dumped["items"]) {
      if (item.value("kind", "") == "ResourceClaim") {
        claimState_[item["metadata"].value("namespace", "") + "/" + item["metadata"].value("name", "")] = item;
      } else {
        dumpItems_.push_back(std::move(item));
      }
    }
    std::ofstream(dir_ + "/" + ns + "-cluster.json") << *dump;

    const std::string upstreamConfig = dir_ + "/" + ns + "-upstream.yaml";
    const std::string ourConfig = dir_ + "/" + ns + "-ours.yaml";
    const differential::ProfileVariant variant = differential::profileVariant(seed);
    std::string extenders;
    if (extenderOn(seed)) {
      extender_ = std::make_unique<ExtenderServer>(extenderAnswer);
      extenders = extenderYaml(extender_->url(), seed);
    }
    std::ofstream(upstreamConfig) << schedulerConfig(cp_->kubeconfigPath(), kUpstreamName, variant, extenders);
    std::ofstream(ourConfig) << schedulerConfig(cp_->kubeconfigPath(), kOurName, variant, extenders);
    startSchedulers(ns, upstreamConfig, ourConfig);
    if (HasFatalFailure()) return;
    std::printf("differential: seed %u: %zu nodes, %zu bound pods, profile: %s%s; %d pending pods to compare\n",
                seed, cluster.nodes.size(), cluster.boundPods.size(), variant.name.c_str(),
                extender_ ? (", extender (weight " + std::to_string(1 + seed % 5) +
                             (seed % 2 == 0 ? ", nodeCacheCapable)" : ")")).c_str()
                          : "",
                pods);
    std::fflush(stdout);

    const auto start = Clock::now();
    int disagreements = 0;
    for (int i = 0; i < pods; ++i) {
      const differential::PendingPod upPod = differential::forScheduler(pending[i], seed, "up");
      const differential::PendingPod ourPod = differential::forScheduler(pending[i], seed, "ours");
      const json& pod = pending[i].pod;
      const Decision up = decide(upPod.pod, kUpstreamName);
      const Decision ours = decide(ourPod.pod, kOurName);
      if (HasFatalFailure()) return;
      const Scores sc =
          ours.stored.is_null() ? Scores{"pod not created"} : simulate(ourConfig, ours.stored, i);
      alignClaims(upPod, ourPod, seed, i);
      refreshClaims(upPod.claims);
      refreshClaims(ourPod.claims);
      if (HasFatalFailure()) return;
      if (!pending[i].claims.empty()) {
        ++tally.withClaims;
        if (up.result == "Scheduled") ++tally.withClaimsScheduled;
      }

      std::vector<std::string> classes;
      if (up.result != ours.result) classes.push_back("result");
      if (up.result == ours.result) {
        const bool anyNode = up.result == "SchedulerError";
        if (sideNeutral(up.message, "up", anyNode) != sideNeutral(ours.message, "ours", anyNode)) {
          classes.push_back("condition message");
        }
        if (sideNeutral(up.event, "up", anyNode) != sideNeutral(ours.event, "ours", anyNode)) {
          classes.push_back("event");
        }
      }
      if (up.result == "Scheduled" && !sc.best.count(up.node)) {
        classes.push_back("upstream's node is not among our best-scored");
      }
      if (ours.result == "Scheduled" && !sc.best.count(ours.node)) {
        classes.push_back("our daemon's node is not among our best-scored");
      }
      if (!sc.error.empty()) classes.push_back("simulate failed");
      ++tally.pods;
      if (up.restoredVictims > 0) ++tally.preempting;
      if (up.result == "Scheduled") {
        ++tally.scheduled;
        if (sc.total.empty()) {
          ++tally.oneFeasible;
        } else {
          ++(sc.best.size() == 1 ? tally.uniqueBest : tally.tiedBest);
        }
      } else if (up.result == "Unschedulable") {
        ++tally.unschedulable;
      }
      if (verbose_) {
        std::printf(
            "differential: seed %u %s: upstream %s %s | ours %s %s | best of %zu scored: %zu node(s)\n"
            "    upstream event: %s\n",
            seed, pod["metadata"]["name"].get<std::string>().c_str(), up.result.c_str(), up.node.c_str(),
            ours.result.c_str(), ours.node.c_str(), sc.total.size(), sc.best.size(), up.event.c_str());
        for (const auto* side : {&upPod, &ourPod}) {
          for (const json& c : side->claims) {
            const std::string key = ns + "/" + c["metadata"]["name"].get<std::string>();
            std::printf("    claim %s: %s\n", key.c_str(), allocatedDevices(claimState_[key]).c_str());
          }
        }
      }
      if (classes.empty()) {
        ++tally.agreements;
      } else {
        ++disagreements;
        std::string what;
        for (const auto& c : classes) {
          tally.byClass[c]++;
          what += (what.empty() ? "" : ", ") + c;
        }
        json spec = pod["spec"];
        ADD_FAILURE() << "==== disagreement: seed " << seed << " (profile: " << variant.name << "), pod "
                      << pod["metadata"]["name"].get<std::string>() << " (" << what
                      << ")\n  pod spec: " << spec.dump() << claimsDump(pending[i].claims)
                      << "\n  upstream: " << describeDecision(up)
                      << "\n  ours:     " << describeDecision(ours) << "\n  "
                      << describeScores(sc, {up.node, ours.node != up.node ? ours.node : ""}) << "\n";
      }
      if ((i + 1) % 25 == 0 || i + 1 == pods) {
        std::printf("differential: seed %u: %d/%d pods, %d disagreements, %.1f s\n", seed, i + 1, pods,
                    disagreements, std::chrono::duration<double>(Clock::now() - start).count());
        std::fflush(stdout);
      }
      if (!upstream_->running() || !ours_->running()) {
        FAIL() << "a scheduler exited\n" << logs();
      }
    }

    upstream_->stop();
    ours_->stop();
    if (extender_) {
      std::printf("differential: seed %u: the extender answered %d filter and %d prioritize calls\n", seed,
                  extender_->calls("filter"), extender_->calls("prioritize"));
      extender_.reset();
    }
    // Clear the seed's objects for the next one (no namespace controller: delete the pods, keep the
    // namespace).
    auto r = api_->del(podPath(ns), {{"gracePeriodSeconds", 0}});
    ASSERT_TRUE(r.ok() && r->status == 200) << (r.ok() ? r->body.dump() : r.error().message());
    for (const auto& s : cluster.services) {  // services have no deletecollection
      const std::string name = s["metadata"]["name"];
      auto d = api_->del("/api/v1/namespaces/" + ns + "/services/" + name);
      ASSERT_TRUE(d.ok() && d->status == 200) << (d.ok() ? d->body.dump() : d.error().message());
    }
    for (const auto& n : nodeNames) {
      auto d = api_->del("/api/v1/nodes/" + n);
      ASSERT_TRUE(d.ok() && d->status == 200) << (d.ok() ? d->body.dump() : d.error().message());
    }
    // The claims: the schedulers' delete-protection finalizer would keep the allocated ones; nobody
    // removes it but us.
    for (const auto& [key, claim] : claimState_) {
      const std::string claimNs = claim["metadata"]["namespace"];
      const std::string path = claimPath(claimNs, claim["metadata"]["name"].get<std::string>());
      if (claim["metadata"].contains("finalizers")) {
        auto p = api_->patch(path, {{"metadata", {{"finalizers", nullptr}}}});
        ASSERT_TRUE(p.ok() && p->status == 200) << (p.ok() ? p->body.dump() : p.error().message());
      }
      auto d = api_->del(path);
      ASSERT_TRUE(d.ok() && d->status == 200) << (d.ok() ? d->body.dump() : d.error().message());
    }
    for (const auto& s : cluster.resourceSlices) {
      auto d = api_->del("/apis/resource.k8s.io/v1/resourceslices/" + s["metadata"]["name"].get<std::string>());
      ASSERT_TRUE(d.ok() && d->status == 200) << (d.ok() ? d->body.dump() : d.error().message());
    }
    for (const auto& c : cluster.deviceClasses) {
      auto d = api_->del("/apis/resource.k8s.io/v1/deviceclasses/" + c["metadata"]["name"].get<std::string>());
      ASSERT_TRUE(d.ok() && d->status == 200) << (d.ok() ? d->body.dump() : d.error().message());
    }
  }

  // "request -> pool/device, ..." of an allocated claim, or "not allocated".
  static std::string allocatedDevices(const json& claim) {
    if (!claim.contains("status") || !claim["status"].contains("allocation")) return "not allocated";
    std::string s;
    for (const auto& r : claim["status"]["allocation"]["devices"].value("results", json::array())) {
      s += (s.empty() ? "" : ", ") + r.value("request", "") + " -> " + r.value("pool", "") + "/" +
           r.value("device", "");
    }
    return s;
  }

  static std::string claimsDump(const std::vector<json>& claims) {
    std::string s;
    for (const auto& c : claims) s += "\n  claim " + c["metadata"]["name"].get<std::string>() + ": " + c["spec"].dump();
    return s;
  }

  std::unique_ptr<ControlPlane> cp_;
  std::unique_ptr<ApiClient> api_;
  std::string dir_;
  std::string upstreamBinary_;
  std::unique_ptr<ExtenderServer> extender_;  // the seed's, when in extender mode; outlives the schedulers
  std::unique_ptr<Process> upstream_;
  std::unique_ptr<Process> ours_;
  json dumpItems_;  // without the ResourceClaims: those are in claimState_
  std::map<std::string, json> claimState_;
  int alignments_ = 0;  // pods whose claims alignClaims() rewrote  // "<ns>/<name>" -> the claim as of the last decision
  const bool draHeavy_ = std::getenv("KS_DIFF_DRA") != nullptr && std::string(std::getenv("KS_DIFF_DRA")) == "heavy";
  const bool verbose_ =
      std::getenv("KS_DIFF_VERBOSE") != nullptr && std::string(std::getenv("KS_DIFF_VERBOSE")) == "1";
};

TEST_F(DifferentialTest, RandomizedClustersAgreeWithUpstream) {
  const std::vector<uint32_t> seeds = seedsFromEnv();
  const int pods = podsFromEnv();
  ASSERT_FALSE(seeds.empty());
  ASSERT_GT(pods, 0);
  const auto start = Clock::now();
  Tally tally;
  std::string seedList;
  for (uint32_t seed : seeds) {
    seedList += (seedList.empty() ? "" : ",") + std::to_string(seed);
    runSeed(seed, pods, tally);
    if (HasFatalFailure()) break;
  }
  std::string classes;
  for (const auto& [c, n] : tally.byClass)
    classes += (classes.empty() ? "" : "; ") + c + ": " + std::to_string(n);
  std::printf("DIFFERENTIAL SUMMARY: seeds %s, %d pods compared, %d agreements, %d disagreements%s, %.0f s\n",
              seedList.c_str(), tally.pods, tally.agreements, tally.pods - tally.agreements,
              classes.empty() ? "" : (" (" + classes + ")").c_str(),
              std::chrono::duration<double>(Clock::now() - start).count());
  std::printf(
      "differential: upstream scheduled %d pods (our best total on one node: %d, tied: %d, one feasible "
      "node: "
      "%d) and found %d unschedulable; %d pods preempted (victims restored before the other decision); %d pods "
      "with ResourceClaims, %d of them scheduled (our claims set to upstream's allocation after %d)\n",
      tally.scheduled, tally.uniqueBest, tally.tiedBest, tally.oneFeasible, tally.unschedulable, tally.preempting,
      tally.withClaims, tally.withClaimsScheduled, alignments_);
}

}  // namespace
}  // namespace ks::integration
