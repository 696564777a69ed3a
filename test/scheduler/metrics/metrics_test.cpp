#include "pkg/scheduler/metrics/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace ks::metrics {
namespace {

using framework::Code;
using Labels = std::map<std::string, std::string>;

struct Sample {
  std::string name;
  Labels labels;
  double value = 0;
};

struct Family {
  std::string help;
  std::string type;
  std::vector<Sample> samples;
};

// A strict parser for the text exposition format subset prometheus-cpp writes.
std::map<std::string, Family> parse(const std::string& text) {
  std::map<std::string, Family> out;
  std::istringstream in(text);
  std::string line;
  std::string current;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line.rfind("# HELP ", 0) == 0) {
      auto rest = line.substr(7);
      auto sp = rest.find(' ');
      current = rest.substr(0, sp);
      out[current].help = rest.substr(sp + 1);
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      auto rest = line.substr(7);
      auto sp = rest.find(' ');
      out[rest.substr(0, sp)].type = rest.substr(sp + 1);
      continue;
    }
    Sample s;
    size_t i = line.find_first_of("{ ");
    s.name = line.substr(0, i);
    if (line[i] == '{') {
      ++i;
      while (line[i] != '}') {
        auto eq = line.find('=', i);
        std::string key = line.substr(i, eq - i);
        size_t q = eq + 2;  // skip ="
        std::string value;
        while (line[q] != '"') {
          if (line[q] == '\\') ++q;
          value += line[q++];
        }
        s.labels[key] = value;
        i = q + 1;
        if (line[i] == ',') ++i;
      }
      ++i;
    }
    s.value = std::stod(line.substr(i + 1));
    EXPECT_FALSE(current.empty()) << line;
    EXPECT_EQ(s.name.rfind(current, 0), 0u) << "sample " << s.name << " outside family " << current;
    out[current].samples.push_back(std::move(s));
  }
  return out;
}

std::set<std::string> labelNames(const Family& f) {
  std::set<std::string> names;
  for (const auto& s : f.samples) {
    for (const auto& [k, v] : s.labels) {
      if (k != "le") names.insert(k);
    }
  }
  return names;
}

// The value of the sample `name` with exactly `labels`; NaN when absent.
double valueOf(const std::map<std::string, Family>& fams, const std::string& family, const std::string& name,
               const Labels& labels) {
  auto it = fams.find(family);
  if (it == fams.end()) return NAN;
  for (const auto& s : it->second.samples) {
    if (s.name == name && s.labels == labels) return s.value;
  }
  return NAN;
}

std::vector<double> bucketBounds(const Family& f, const Labels& series) {
  std::vector<double> bounds;
  for (const auto& s : f.samples) {
    if (!s.name.ends_with("_bucket")) continue;
    Labels l = s.labels;
    std::string le = l["le"];
    l.erase("le");
    if (l != series) continue;
    bounds.push_back(le == "+Inf" ? INFINITY : std::stod(le));
  }
  return bounds;
}

std::vector<double> expBuckets(double start, double factor, int count) {
  std::vector<double> b;
  for (int i = 0; i < count; ++i, start *= factor) b.push_back(start);
  b.push_back(INFINITY);
  return b;
}

void expectBounds(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isinf(want[i])) {
      EXPECT_TRUE(std::isinf(got[i]));
    } else {
      EXPECT_NEAR(got[i], want[i], want[i] * 1e-12) << "bucket " << i;
    }
  }
}

// Records one sample in every family.
void recordEverything(Metrics& m) {
  ProfileId p = m.profile("default-scheduler");
  PluginId fit = m.plugin("NodeResourcesFit");
  m.podScheduled(p, 0.01);
  m.podUnschedulable(p, 0.02);
  m.podScheduleError(p, 0.03);
  m.observeSchedulingAlgorithm(0.005);
  m.podBound(2, 1.5);
  m.podScheduledAfterFlush();
  m.observeExtensionPoint(ExtensionPoint::Filter, Code::Success, p, 0.0002);
  m.observePluginExecution(fit, ExtensionPoint::Filter, Code::Unschedulable, 0.00002);
  m.incPluginEvaluation(fit, ExtensionPoint::Filter, p);
  m.observePermitWait(Code::Success, 0.1);
  m.incPreemptionAttempts();
  m.observePreemptionVictims(3);
  m.pendingPods(Queue::Active).set(4);
  m.incQueueIncomingPods(Queue::Active, "PodAdd");
  m.queueIncomingEntitiesRef(Queue::Active, "PodAdd").inc();
  m.setQueuedPodEntities(Queue::Active, 1);
  m.setQueuedPodEntities(Queue::Backoff, 0);  // no series until the queue held a pod
  m.unschedulablePods(fit, p).inc();
  m.inflightEvents("NodeAdd").inc();
  m.observeQueueingHint(fit, "NodeAdd", QueueingHintResult::Queue, 0.00001);
  m.observeEventHandling("PodAdd", 0.0003);
  m.cacheSize(CacheItem::Nodes).set(10);
  m.goroutines(kBindingOperation).inc();
  m.setLeaderStatus("kube-scheduler-cpp", true);
  m.incLeaderSlowpath("kube-scheduler-cpp");
  m.incBatchAttempt(p, BatchAttemptResult::HintUsed);
  m.incBatchCacheFlushed(p, BatchFlushReason::PodIncompatible);
  m.incBatchRescoreAttempt(p);
  m.observeBatchRescore(p, 0.00002);
  m.observeGetNodeHint(p, true, 0.00001);
  m.observeStoreScheduleResults(p, 0.00001);
  m.draBindingConditionsAllocationsRef("default-scheduler", "gpu.example.com",
                                       Metrics::kBindingConditionsSuccess)
      .inc();
  m.draBindingConditionsWaitRef("default-scheduler", "gpu.example.com", Metrics::kBindingConditionsTimeout)
      .observe(1.5);
  m.extenderRequestDurationRef("http://127.0.0.1:8888", "filter").observe(0.002);
  m.extenderErrorsRef("http://127.0.0.1:8888", "filter", "timeout").inc();
}

TEST(MetricsTest, FamiliesHaveUpstreamNamesTypesAndLabels) {
  Metrics m;
  recordEverything(m);
  auto fams = parse(m.scrape());

  struct Want {
    std::string type;
    std::set<std::string> labels;
  };
  const std::map<std::string, Want> want = {
      {"scheduler_schedule_attempts_total", {"counter", {"result", "profile"}}},
      {"scheduler_scheduling_attempt_duration_seconds", {"histogram", {"result", "profile"}}},
      {"scheduler_scheduling_algorithm_duration_seconds", {"histogram", {}}},
      {"scheduler_pod_scheduling_sli_duration_seconds", {"histogram", {"attempts"}}},
      {"scheduler_pod_scheduling_attempts", {"histogram", {}}},
      {"scheduler_pending_pods", {"gauge", {"queue"}}},
      {"scheduler_queue_incoming_pods_total", {"counter", {"queue", "event"}}},
      {"scheduler_queued_entities", {"gauge", {"queue", "type"}}},
      {"scheduler_queue_incoming_entities_total", {"counter", {"queue", "event", "type"}}},
      {"scheduler_framework_extension_point_duration_seconds",
       {"histogram", {"extension_point", "status", "profile"}}},
      {"scheduler_plugin_execution_duration_seconds", {"histogram", {"plugin", "extension_point", "status"}}},
      {"scheduler_permit_wait_duration_seconds", {"histogram", {"result"}}},
      {"scheduler_preemption_attempts_total", {"counter", {}}},
      {"scheduler_pod_scheduled_after_flush_total", {"counter", {}}},
      {"scheduler_preemption_victims", {"histogram", {}}},
      {"scheduler_unschedulable_pods", {"gauge", {"plugin", "profile"}}},
      {"scheduler_cache_size", {"gauge", {"type"}}},
      {"scheduler_event_handling_duration_seconds", {"histogram", {"event"}}},
      {"scheduler_goroutines", {"gauge", {"operation"}}},
      {"scheduler_plugin_evaluation_total", {"counter", {"plugin", "extension_point", "profile"}}},
      {"scheduler_queueing_hint_execution_duration_seconds", {"histogram", {"plugin", "event", "hint"}}},
      {"scheduler_inflight_events", {"gauge", {"event"}}},
      {"leader_election_master_status", {"gauge", {"name"}}},
      {"leader_election_slowpath_total", {"counter", {"name"}}},
      {"scheduler_batch_attempts_total", {"counter", {"profile", "result"}}},
      {"scheduler_batch_cache_flushed_total", {"counter", {"profile", "reason"}}},
      {"scheduler_batch_rescore_attempts_total", {"counter", {"profile"}}},
      {"scheduler_batch_rescore_duration_seconds", {"histogram", {"profile"}}},
      {"scheduler_get_node_hint_duration_seconds", {"histogram", {"hinted", "profile"}}},
      {"scheduler_store_schedule_results_duration_seconds", {"histogram", {"profile"}}},
      {"scheduler_dra_bindingconditions_allocations_total", {"counter", {"profile", "driver", "status"}}},
      {"scheduler_dra_bindingconditions_wait_duration_seconds",
       {"histogram", {"profile", "driver", "status"}}},
      // kube-scheduler-cpp's own (upstream has no per-extender metrics).
      {"scheduler_extender_request_duration_seconds", {"histogram", {"extender", "verb"}}},
      {"scheduler_extender_errors_total", {"counter", {"extender", "verb", "kind"}}},
  };
  std::set<std::string> gotNames;
  for (const auto& [name, f] : fams) gotNames.insert(name);
  std::set<std::string> wantNames;
  for (const auto& [name, w] : want) wantNames.insert(name);
  EXPECT_EQ(gotNames, wantNames);
  for (const auto& [name, w] : want) {
    SCOPED_TRACE(name);
    auto it = fams.find(name);
    ASSERT_NE(it, fams.end());
    EXPECT_EQ(it->second.type, w.type);
    EXPECT_EQ(labelNames(it->second), w.labels);
    EXPECT_FALSE(it->second.samples.empty());
  }
}

TEST(MetricsTest, HelpCarriesStabilityLevel) {
  Metrics m;
  recordEverything(m);
  auto fams = parse(m.scrape());
  EXPECT_EQ(
      fams["scheduler_schedule_attempts_total"].help,
      "[STABLE] Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be "
      "scheduled, while 'error' means an internal scheduler problem.");
  // BETA since v1.37 (with goroutines, unschedulable_pods, permit_wait_duration_seconds,
  // plugin_execution_duration_seconds and plugin_evaluation_total).
  EXPECT_EQ(fams["scheduler_scheduling_algorithm_duration_seconds"].help,
            "[BETA] Scheduling algorithm latency in seconds");
  EXPECT_EQ(fams["scheduler_goroutines"].help,
            "[BETA] Number of running goroutines split by the work they do such as binding.");
  EXPECT_EQ(fams["scheduler_event_handling_duration_seconds"].help, "[ALPHA] Event handling latency in seconds.");
  EXPECT_EQ(fams["scheduler_preemption_attempts_total"].help,
            "[STABLE] Total preemption attempts in the cluster till now");
  // Opportunistic batching (v1.37), all ALPHA.
  EXPECT_EQ(fams["scheduler_batch_attempts_total"].help,
            "[ALPHA] Counts of results when we attempt to use batching.");
  EXPECT_EQ(fams["scheduler_batch_cache_flushed_total"].help, "[ALPHA] Counts of cache flushes by reason.");
  EXPECT_EQ(fams["scheduler_batch_rescore_attempts_total"].help,
            "[ALPHA] Counts of rescore attempts during opportunistic batching.");
  EXPECT_EQ(fams["scheduler_batch_rescore_duration_seconds"].help,
            "[ALPHA] Latency for rescoring a node during opportunistic batching.");
  EXPECT_EQ(fams["scheduler_get_node_hint_duration_seconds"].help,
            "[ALPHA] Latency for getting a node hint.");
  EXPECT_EQ(fams["scheduler_store_schedule_results_duration_seconds"].help,
            "[ALPHA] Latency for storing scheduling results.");
  // DRADeviceBindingConditions (v1.37), ALPHA.
  EXPECT_EQ(fams["scheduler_dra_bindingconditions_allocations_total"].help,
            "[ALPHA] Number of allocations using devices with BindingConditions, counted per driver per "
            "scheduling attempt");
  EXPECT_EQ(fams["scheduler_dra_bindingconditions_wait_duration_seconds"].help,
            "[ALPHA] Time in seconds spent waiting for BindingConditions to be satisfied during PreBind.");
}

TEST(MetricsTest, FreshRegistryExposesOnlyUnlabelledAndBoundedSeries) {
  Metrics m;
  auto fams = parse(m.scrape());
  // Vector metrics without recorded series are not exposed (as upstream); unlabelled ones are, at zero.
  EXPECT_EQ(fams.count("scheduler_schedule_attempts_total"), 0u);
  EXPECT_EQ(fams.count("scheduler_framework_extension_point_duration_seconds"), 0u);
  EXPECT_EQ(valueOf(fams, "scheduler_pod_scheduled_after_flush_total", "scheduler_pod_scheduled_after_flush_total",
                    {}),
            0);
  EXPECT_EQ(valueOf(fams, "scheduler_preemption_attempts_total", "scheduler_preemption_attempts_total", {}),
            0);
  EXPECT_EQ(valueOf(fams, "scheduler_scheduling_algorithm_duration_seconds",
                    "scheduler_scheduling_algorithm_duration_seconds_count", {}),
            0);
  for (const char* q : {"active", "backoff", "unschedulable", "gated"}) {
    EXPECT_EQ(valueOf(fams, "scheduler_pending_pods", "scheduler_pending_pods", {{"queue", q}}), 0) << q;
  }
  for (const char* t : {"nodes", "pods", "assumed_pods"}) {
    EXPECT_EQ(valueOf(fams, "scheduler_cache_size", "scheduler_cache_size", {{"type", t}}), 0) << t;
  }
}

TEST(MetricsTest, HistogramBucketsMatchUpstream) {
  Metrics m;
  recordEverything(m);
  auto fams = parse(m.scrape());
  expectBounds(bucketBounds(fams["scheduler_scheduling_attempt_duration_seconds"],
                            {{"result", "scheduled"}, {"profile", "default-scheduler"}}),
               expBuckets(0.001, 2, 15));
  expectBounds(bucketBounds(fams["scheduler_scheduling_algorithm_duration_seconds"], {}),
               expBuckets(0.001, 2, 15));
  expectBounds(
      bucketBounds(fams["scheduler_framework_extension_point_duration_seconds"],
                   {{"extension_point", "Filter"}, {"status", "Success"}, {"profile", "default-scheduler"}}),
      expBuckets(0.0001, 2, 12));
  expectBounds(
      bucketBounds(
          fams["scheduler_plugin_execution_duration_seconds"],
          {{"plugin", "NodeResourcesFit"}, {"extension_point", "Filter"}, {"status", "Unschedulable"}}),
      expBuckets(0.00001, 1.5, 20));
  expectBounds(bucketBounds(fams["scheduler_pod_scheduling_sli_duration_seconds"], {{"attempts", "2"}}),
               expBuckets(0.01, 2, 20));
  expectBounds(bucketBounds(fams["scheduler_pod_scheduling_attempts"], {}), expBuckets(1, 2, 5));
  expectBounds(bucketBounds(fams["scheduler_preemption_victims"], {}), expBuckets(1, 2, 7));
  expectBounds(bucketBounds(fams["scheduler_permit_wait_duration_seconds"], {{"result", "Success"}}),
               expBuckets(0.001, 2, 15));
  expectBounds(bucketBounds(fams["scheduler_event_handling_duration_seconds"], {{"event", "PodAdd"}}),
               expBuckets(0.0001, 2, 12));
  expectBounds(bucketBounds(fams["scheduler_queueing_hint_execution_duration_seconds"],
                            {{"plugin", "NodeResourcesFit"}, {"event", "NodeAdd"}, {"hint", "Queue"}}),
               expBuckets(0.00001, 1.5, 20));
  const Labels profile = {{"profile", "default-scheduler"}};
  expectBounds(bucketBounds(fams["scheduler_batch_rescore_duration_seconds"], profile),
               expBuckets(0.00001, 2, 12));
  expectBounds(bucketBounds(fams["scheduler_get_node_hint_duration_seconds"],
                            {{"hinted", "hint"}, {"profile", "default-scheduler"}}),
               expBuckets(0.00001, 2, 12));
  expectBounds(bucketBounds(fams["scheduler_store_schedule_results_duration_seconds"], profile),
               expBuckets(0.00001, 2, 12));
  expectBounds(
      bucketBounds(fams["scheduler_dra_bindingconditions_wait_duration_seconds"],
                   {{"profile", "default-scheduler"}, {"driver", "gpu.example.com"}, {"status", "timeout"}}),
      expBuckets(0.1, 2, 14));
}

// The label values of the batching metrics, as upstream's metrics.BatchAttempt* and BatchFlush*.
TEST(MetricsTest, BatchingLabelValues) {
  Metrics m;
  ProfileId p = m.profile("p");
  for (auto r : {BatchAttemptResult::NoHint, BatchAttemptResult::HintUsed, BatchAttemptResult::HintNotUsed}) {
    m.incBatchAttempt(p, r);
  }
  for (size_t i = 0; i < kBatchFlushReasonCount; ++i)
    m.incBatchCacheFlushed(p, static_cast<BatchFlushReason>(i));
  m.observeGetNodeHint(p, false, 0.001);
  auto fams = parse(m.scrape());
  const std::string a = "scheduler_batch_attempts_total";
  for (const char* r : {"no_hint", "hint_used", "hint_not_used"}) {
    EXPECT_EQ(valueOf(fams, a, a, {{"profile", "p"}, {"result", r}}), 1) << r;
  }
  const std::string f = "scheduler_batch_cache_flushed_total";
  for (const char* r : {"pod_failed", "pod_skipped", "pod_nominated", "node_missing", "empty_list", "expired",
                        "pod_incompatible", "pod_not_batchable", "filter_error", "prescore_error",
                        "rescore_error", "normalize_error"}) {
    EXPECT_EQ(valueOf(fams, f, f, {{"profile", "p"}, {"reason", r}}), 1) << r;
  }
  const std::string h = "scheduler_get_node_hint_duration_seconds";
  EXPECT_EQ(valueOf(fams, h, h + "_count", {{"hinted", "no_hint"}, {"profile", "p"}}), 1);
  EXPECT_EQ(extensionPointName(ExtensionPoint::Sign), "Sign");
}

TEST(MetricsTest, CountersAndHistogramsMoveAsRecorded) {
  Metrics m;
  ProfileId p = m.profile("a");
  ProfileId q = m.profile("b");
  EXPECT_EQ(m.profile("a").name(), "a");
  m.podScheduled(p, 0.004);
  m.podScheduled(p, 0.5);
  m.podUnschedulable(q, 0.002);
  m.podScheduleError(p, 100);
  m.observeExtensionPoint(ExtensionPoint::PreFilter, Code::UnschedulableAndUnresolvable, q, 0.00015);
  m.observeExtensionPoint(ExtensionPoint::PreFilter, Code::UnschedulableAndUnresolvable, q, 0.00015);
  m.podBound(1, 0.2);
  m.podBound(40, 3);
  m.incPreemptionAttempts();
  m.observePreemptionVictims(100);

  auto fams = parse(m.scrape());
  const std::string attempts = "scheduler_schedule_attempts_total";
  EXPECT_EQ(valueOf(fams, attempts, attempts, {{"result", "scheduled"}, {"profile", "a"}}), 2);
  EXPECT_EQ(valueOf(fams, attempts, attempts, {{"result", "unschedulable"}, {"profile", "b"}}), 1);
  EXPECT_EQ(valueOf(fams, attempts, attempts, {{"result", "error"}, {"profile", "a"}}), 1);
  EXPECT_TRUE(std::isnan(valueOf(fams, attempts, attempts, {{"result", "scheduled"}, {"profile", "b"}})));

  const std::string lat = "scheduler_scheduling_attempt_duration_seconds";
  EXPECT_EQ(valueOf(fams, lat, lat + "_count", {{"result", "scheduled"}, {"profile", "a"}}), 2);
  EXPECT_DOUBLE_EQ(valueOf(fams, lat, lat + "_sum", {{"result", "scheduled"}, {"profile", "a"}}), 0.504);
  // 0.004 falls in le=0.004 (cumulative: 0.001 -> 0, 0.002 -> 0, 0.004 -> 1), 0.5 in le=0.512.
  EXPECT_EQ(valueOf(fams, lat, lat + "_bucket", {{"result", "scheduled"}, {"profile", "a"}, {"le", "0.002"}}),
            0);
  EXPECT_EQ(valueOf(fams, lat, lat + "_bucket", {{"result", "scheduled"}, {"profile", "a"}, {"le", "0.004"}}),
            1);
  EXPECT_EQ(valueOf(fams, lat, lat + "_bucket", {{"result", "scheduled"}, {"profile", "a"}, {"le", "0.512"}}),
            2);
  EXPECT_EQ(valueOf(fams, lat, lat + "_bucket", {{"result", "error"}, {"profile", "a"}, {"le", "+Inf"}}), 1);

  const std::string ep = "scheduler_framework_extension_point_duration_seconds";
  EXPECT_EQ(
      valueOf(
          fams, ep, ep + "_count",
          {{"extension_point", "PreFilter"}, {"status", "UnschedulableAndUnresolvable"}, {"profile", "b"}}),
      2);

  const std::string sli = "scheduler_pod_scheduling_sli_duration_seconds";
  EXPECT_EQ(valueOf(fams, sli, sli + "_count", {{"attempts", "1"}}), 1);
  EXPECT_EQ(valueOf(fams, sli, sli + "_count", {{"attempts", "15+"}}), 1);
  EXPECT_TRUE(std::isnan(valueOf(fams, sli, sli + "_count", {{"attempts", "40"}})));
  const std::string pa = "scheduler_pod_scheduling_attempts";
  EXPECT_EQ(valueOf(fams, pa, pa + "_count", {}), 2);
  EXPECT_EQ(valueOf(fams, pa, pa + "_bucket", {{"le", "16"}}), 1);
  EXPECT_EQ(valueOf(fams, "scheduler_preemption_attempts_total", "scheduler_preemption_attempts_total", {}),
            1);
  EXPECT_EQ(
      valueOf(fams, "scheduler_preemption_victims", "scheduler_preemption_victims_bucket", {{"le", "64"}}),
      0);
}

TEST(MetricsTest, GaugesSetIncDec) {
  Metrics m;
  ProfileId p = m.profile("default-scheduler");
  PluginId taint = m.plugin("TaintToleration");
  GaugeRef active = m.pendingPods(Queue::Active);
  active.set(5);
  active.inc();
  active.dec(2);
  m.pendingPods(Queue::Gated).inc();
  m.cacheSize(CacheItem::AssumedPods).set(3);
  GaugeRef binding = m.goroutines(kBindingOperation);
  binding.inc();
  binding.inc();
  binding.dec();
  m.unschedulablePods(taint, p).inc();
  m.unschedulablePods(taint, p).inc();
  m.unschedulablePods(taint, p).dec();
  m.setLeaderStatus("lease", true);
  m.setLeaderStatus("lease", false);
  EXPECT_EQ(active.value(), 4);

  auto fams = parse(m.scrape());
  EXPECT_EQ(valueOf(fams, "scheduler_pending_pods", "scheduler_pending_pods", {{"queue", "active"}}), 4);
  EXPECT_EQ(valueOf(fams, "scheduler_pending_pods", "scheduler_pending_pods", {{"queue", "gated"}}), 1);
  EXPECT_EQ(valueOf(fams, "scheduler_cache_size", "scheduler_cache_size", {{"type", "assumed_pods"}}), 3);
  EXPECT_EQ(valueOf(fams, "scheduler_goroutines", "scheduler_goroutines", {{"operation", "binding"}}), 1);
  EXPECT_EQ(valueOf(fams, "scheduler_unschedulable_pods", "scheduler_unschedulable_pods",
                    {{"plugin", "TaintToleration"}, {"profile", "default-scheduler"}}),
            1);
  EXPECT_EQ(
      valueOf(fams, "leader_election_master_status", "leader_election_master_status", {{"name", "lease"}}),
      0);
}

TEST(MetricsTest, QueueIncomingPodsByQueueAndEvent) {
  Metrics m;
  CounterRef podAdd = m.queueIncomingPodsRef(Queue::Active, "PodAdd");
  podAdd.inc();
  podAdd.inc();
  m.incQueueIncomingPods(Queue::Backoff, "ScheduleAttemptFailure");
  m.incQueueIncomingPods(Queue::Active, "PodAdd");
  EXPECT_EQ(podAdd.value(), 3);
  auto fams = parse(m.scrape());
  const std::string n = "scheduler_queue_incoming_pods_total";
  EXPECT_EQ(valueOf(fams, n, n, {{"queue", "active"}, {"event", "PodAdd"}}), 3);
  EXPECT_EQ(valueOf(fams, n, n, {{"queue", "backoff"}, {"event", "ScheduleAttemptFailure"}}), 1);
}

TEST(MetricsTest, ManyProfilesAndPluginsBeyondCachedSlots) {
  Metrics m;
  std::vector<ProfileId> profiles;
  for (int i = 0; i < 12; ++i) profiles.push_back(m.profile("p" + std::to_string(i)));
  PluginId pl = m.plugin("NodeAffinity");
  for (auto& p : profiles) {
    m.incPluginEvaluation(pl, ExtensionPoint::PreFilter, p, 2);
    m.unschedulablePods(pl, p).inc();
  }
  auto fams = parse(m.scrape());
  const std::string n = "scheduler_plugin_evaluation_total";
  for (int i = 0; i < 12; ++i) {
    std::string prof = "p" + std::to_string(i);
    EXPECT_EQ(valueOf(fams, n, n,
                      {{"plugin", "NodeAffinity"}, {"extension_point", "PreFilter"}, {"profile", prof}}),
              2);
    EXPECT_EQ(valueOf(fams, "scheduler_unschedulable_pods", "scheduler_unschedulable_pods",
                      {{"plugin", "NodeAffinity"}, {"profile", prof}}),
              1);
  }
}

TEST(MetricsTest, ConcurrentRecordingIsCounted) {
  Metrics m;
  ProfileId p = m.profile("default-scheduler");
  PluginId fit = m.plugin("NodeResourcesFit");
  constexpr int kThreads = 4;
  constexpr int kPerThread = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        m.podScheduled(p, 0.001);
        m.observePluginExecution(fit, ExtensionPoint::Score, Code::Success, 0.00001);
        m.incPluginEvaluation(fit, ExtensionPoint::Score, p);
        if (i % 100 == 0) (void)m.scrape();
      }
    });
  }
  for (auto& t : threads) t.join();
  auto fams = parse(m.scrape());
  const std::string n = "scheduler_schedule_attempts_total";
  EXPECT_EQ(valueOf(fams, n, n, {{"result", "scheduled"}, {"profile", "default-scheduler"}}),
            kThreads * kPerThread);
  const std::string pe = "scheduler_plugin_execution_duration_seconds";
  EXPECT_EQ(valueOf(fams, pe, pe + "_count",
                    {{"plugin", "NodeResourcesFit"}, {"extension_point", "Score"}, {"status", "Success"}}),
            kThreads * kPerThread);
}

TEST(MetricsTest, InstancesAreIndependent) {
  Metrics a;
  Metrics b;
  a.incPreemptionAttempts();
  auto fa = parse(a.scrape());
  auto fb = parse(b.scrape());
  EXPECT_EQ(valueOf(fa, "scheduler_preemption_attempts_total", "scheduler_preemption_attempts_total", {}), 1);
  EXPECT_EQ(valueOf(fb, "scheduler_preemption_attempts_total", "scheduler_preemption_attempts_total", {}), 0);
}

TEST(MetricsTest, LabelNamesOfEnums) {
  EXPECT_EQ(extensionPointName(ExtensionPoint::ScoreExtensionNormalize), "ScoreExtensionNormalize");
  EXPECT_EQ(extensionPointName(ExtensionPoint::PreBindPreFlight), "PreBindPreFlight");
  EXPECT_EQ(codeLabel(Code::UnschedulableAndUnresolvable), "UnschedulableAndUnresolvable");
  EXPECT_EQ(codeLabel(Code::Pending), "Pending");
  EXPECT_EQ(queueName(Queue::Gated), "gated");
  EXPECT_EQ(cacheItemName(CacheItem::AssumedPods), "assumed_pods");
  EXPECT_EQ(queueingHintResultName(QueueingHintResult::QueueSkip), "QueueSkip");
}

TEST(MetricsTest, EmptyHandlesAreNoOps) {
  CounterRef c;
  GaugeRef g;
  HistogramRef h;
  c.inc();
  g.set(3);
  h.observe(1);
  EXPECT_EQ(c.value(), 0);
  EXPECT_EQ(g.value(), 0);
  EXPECT_FALSE(c);
}

// Upstream registers the workload-aware preemption metrics with the pod-group ones (GenericWorkload): before
// registerPodGroupMetrics() recording them does nothing and they are not exposed; after, they carry upstream's
// names, types, labels, HELP texts and buckets.
TEST(MetricsTest, WorkloadPreemptionMetricsExistOnlyWithThePodGroupOnes) {
  Metrics m;
  auto recordAll = [&m] {
    m.incWorkloadPreemptionAttempt(Code::Unschedulable);
    m.observeWorkloadPreemptionVictims(3);
    m.observePreemptionWorkloadDisruptions("podgroup", 2);
    m.observePreemptionEvaluation("pod", Code::Success, 0.01);
    m.observePreemptionExecution("podgroup", false, 0.02);
    m.addPreemptionPDBViolations("pod", 4);
  };
  const std::vector<std::string> names = {"scheduler_workload_preemption_attempts_total",
                                          "scheduler_workload_preemption_victims",
                                          "scheduler_preemption_workload_disruptions",
                                          "scheduler_preemption_evaluation_duration_seconds",
                                          "scheduler_preemption_execution_duration_seconds",
                                          "scheduler_preemption_pdb_violations_total"};
  recordAll();
  auto before = parse(m.scrape());
  for (const auto& name : names) EXPECT_EQ(before.count(name), 0u) << name;

  m.registerPodGroupMetrics();
  m.registerPodGroupMetrics();  // idempotent
  auto registered = parse(m.scrape());
  // The unlabelled histogram exists (empty) from the registration on, as upstream's.
  EXPECT_EQ(valueOf(registered, "scheduler_workload_preemption_victims", "scheduler_workload_preemption_victims_count",
                    {}),
            0);
  recordAll();
  auto fams = parse(m.scrape());
  struct Want {
    std::string type;
    std::set<std::string> labels;
    std::string help;
  };
  const std::map<std::string, Want> want = {
      {"scheduler_workload_preemption_attempts_total",
       {"counter",
        {"result"},
        "[ALPHA] Total preemption attempts initiated by workload (including pod groups) in the cluster till now."}},
      {"scheduler_workload_preemption_victims",
       {"histogram", {}, "[ALPHA] Number of pod preemption victims caused by workload preemption."}},
      {"scheduler_preemption_workload_disruptions",
       {"histogram",
        {"preemptor"},
        "[ALPHA] Number of workload preemption units being preempted. A single preemption unit can be all pods in "
        "a pod group (in case of DisruptionMode=all), or a single pod (in case of DisruptionMode=single)."}},
      {"scheduler_preemption_evaluation_duration_seconds",
       {"histogram",
        {"preemptor", "result"},
        "[ALPHA] Duration in seconds for identifying the target preemption victims."}},
      {"scheduler_preemption_execution_duration_seconds",
       {"histogram",
        {"preemptor", "result"},
        "[ALPHA] Duration in seconds for preempting the target preemption victims. With async preemption enabled, "
        "preemption execution does not block the scheduling of other pods."}},
      {"scheduler_preemption_pdb_violations_total",
       {"counter", {"preemptor"}, "[ALPHA] Total number of pod disruption budget violations caused by preemption."}},
  };
  for (const auto& [name, w] : want) {
    SCOPED_TRACE(name);
    auto it = fams.find(name);
    ASSERT_NE(it, fams.end());
    EXPECT_EQ(it->second.type, w.type);
    EXPECT_EQ(labelNames(it->second), w.labels);
    EXPECT_EQ(it->second.help, w.help);
  }
  EXPECT_EQ(valueOf(fams, "scheduler_workload_preemption_attempts_total",
                    "scheduler_workload_preemption_attempts_total", {{"result", "Unschedulable"}}),
            1);
  EXPECT_EQ(valueOf(fams, "scheduler_workload_preemption_victims", "scheduler_workload_preemption_victims_sum", {}),
            3);
  EXPECT_EQ(valueOf(fams, "scheduler_preemption_workload_disruptions",
                    "scheduler_preemption_workload_disruptions_sum", {{"preemptor", "podgroup"}}),
            2);
  EXPECT_EQ(valueOf(fams, "scheduler_preemption_evaluation_duration_seconds",
                    "scheduler_preemption_evaluation_duration_seconds_count",
                    {{"preemptor", "pod"}, {"result", "Success"}}),
            1);
  EXPECT_EQ(valueOf(fams, "scheduler_preemption_execution_duration_seconds",
                    "scheduler_preemption_execution_duration_seconds_count",
                    {{"preemptor", "podgroup"}, {"result", "error"}}),
            1);
  EXPECT_EQ(valueOf(fams, "scheduler_preemption_pdb_violations_total", "scheduler_preemption_pdb_violations_total",
                    {{"preemptor", "pod"}}),
            4);
  expectBounds(bucketBounds(fams["scheduler_workload_preemption_victims"], {}), expBuckets(1, 2, 11));
  expectBounds(bucketBounds(fams["scheduler_preemption_workload_disruptions"], {{"preemptor", "podgroup"}}),
               expBuckets(1, 2, 11));
  expectBounds(bucketBounds(fams["scheduler_preemption_evaluation_duration_seconds"],
                            {{"preemptor", "pod"}, {"result", "Success"}}),
               expBuckets(0.001, 2, 16));
  expectBounds(bucketBounds(fams["scheduler_preemption_execution_duration_seconds"],
                            {{"preemptor", "podgroup"}, {"result", "error"}}),
               expBuckets(0.001, 2, 16));
  // scheduler_preemption_victims is the single pod's (v1.37 help).
  EXPECT_EQ(fams["scheduler_preemption_victims"].help,
            "[STABLE] Number of selected preemption victims for preemption initiated by a single pod");
}

}  // namespace
}  // namespace ks::metrics
