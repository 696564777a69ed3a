// /metrics/resources: upstream's pod resource collector table (pkg/scheduler/metrics/resources/
// resources_test.go, Test_podResourceCollector_Handler and TestPodResourceCollector).

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/scheduler/metrics/resources.h"

namespace ks::metrics {
namespace {

using PodPtr = std::shared_ptr<const api::Pod>;

const std::string kLimitHead =
    "# HELP kube_pod_resource_limit [STABLE] Resources limit for workloads on the cluster, broken down by pod. "
    "This shows the resource usage the scheduler and kubelet expect per pod for resources along with the unit "
    "for the resource if any.\n# TYPE kube_pod_resource_limit gauge\n";
const std::string kRequestHead =
    "# HELP kube_pod_resource_request [STABLE] Resources requested by workloads on the cluster, broken down by "
    "pod. This shows the resource usage the scheduler and kubelet expect per pod for resources along with the "
    "unit for the resource if any.\n# TYPE kube_pod_resource_request gauge\n";

api::ResourceList rl(std::initializer_list<std::pair<const char*, const char*>> items) {
  api::ResourceList out;
  for (const auto& [name, value] : items) {
    auto q = api::Quantity::parse(value);
    EXPECT_TRUE(q.ok()) << value;
    out[name] = *q;
  }
  return out;
}

api::Container container(api::ResourceList requests, api::ResourceList limits = {}) {
  api::Container c;
  c.resources.requests = std::move(requests);
  c.resources.limits = std::move(limits);
  return c;
}

api::Pod pod(std::string name, std::string node = "") {
  api::Pod p;
  p.metadata.namespace_ = "test";
  p.metadata.name = std::move(name);
  p.spec.nodeName = std::move(node);
  return p;
}

std::string line(const std::string& metric, const std::string& node, const std::string& podName,
                 const std::string& resource, const std::string& unit, const std::string& value,
                 const std::string& priority = "", const std::string& scheduler = "") {
  return metric + "{namespace=\"test\",node=\"" + node + "\",pod=\"" + podName + "\",priority=\"" + priority +
         "\",resource=\"" + resource + "\",scheduler=\"" + scheduler + "\",unit=\"" + unit + "\"} " + value + "\n";
}
std::string req(const std::string& resource, const std::string& unit, const std::string& value,
                const std::string& node = "", const std::string& podName = "foo") {
  return line("kube_pod_resource_request", node, podName, resource, unit, value);
}
std::string lim(const std::string& resource, const std::string& unit, const std::string& value,
                const std::string& node = "", const std::string& podName = "foo") {
  return line("kube_pod_resource_limit", node, podName, resource, unit, value);
}

std::string text(std::vector<api::Pod> pods) {
  std::vector<PodPtr> ptrs;
  for (auto& p : pods) ptrs.push_back(std::make_shared<const api::Pod>(std::move(p)));
  return podResourceMetricsText(ptrs);
}

TEST(PodResourceCollectorTest, Handler) {
  api::Pod p = pod("foo", "node-one");
  p.spec.initContainers = {container(rl({{"cpu", "2"}, {"custom", "3"}}), rl({{"memory", "1G"}, {"custom", "5"}}))};
  p.spec.containers = {container(rl({{"cpu", "1"}, {"custom", "0"}}), rl({{"memory", "2.5Gi"}, {"custom", "6"}}))};
  p.status.conditions = {{.type = "Initialized", .status = "True"}};
  EXPECT_EQ(text({p}), kLimitHead + lim("custom", "", "6", "node-one") +
                           lim("memory", "bytes", "2.68435456e+09", "node-one") + kRequestHead +
                           req("cpu", "cores", "2", "node-one") + req("custom", "", "3", "node-one"));
}

TEST(PodResourceCollectorTest, NoContainersAndNoResources) {
  EXPECT_EQ(text({pod("foo")}), "");
  api::Pod p = pod("foo");
  p.spec.containers = {container({})};
  EXPECT_EQ(text({p}), "");
}

TEST(PodResourceCollectorTest, RequestOnlyAndLimitsOnly) {
  api::Pod r = pod("foo");
  r.spec.containers = {container(rl({{"cpu", "1"}}))};
  EXPECT_EQ(text({r}), kRequestHead + req("cpu", "cores", "1"));
  api::Pod l = pod("foo");
  l.spec.containers = {container({}, rl({{"cpu", "1"}}))};
  EXPECT_EQ(text({l}), kLimitHead + lim("cpu", "cores", "1"));
}

TEST(PodResourceCollectorTest, TerminalPodsAreExcluded) {
  auto cpu1 = [](std::string name, std::string node, std::string phase) {
    api::Pod p = pod(std::move(name), std::move(node));
    p.spec.containers = {container(rl({{"cpu", "1"}}))};
    p.status.phase = std::move(phase);
    return p;
  };
  api::Pod pending = cpu1("foo-pending", "node-one", "Pending");
  pending.spec.initContainers = {container(rl({{"cpu", "1"}}))};
  pending.status.conditions = {{.type = "ArbitraryCondition", .status = "True"}};
  // until the node name is set, the phase is ignored
  EXPECT_EQ(text({cpu1("foo-unscheduled-succeeded", "", "Succeeded"), cpu1("foo-succeeded", "node-one", "Succeeded"),
                  cpu1("foo-failed", "node-one", "Failed"), cpu1("foo-unknown", "node-one", "Unknown"), pending}),
            kRequestHead + req("cpu", "cores", "1", "", "foo-unscheduled-succeeded") +
                req("cpu", "cores", "1", "node-one", "foo-pending") +
                req("cpu", "cores", "1", "node-one", "foo-unknown"));
}

TEST(PodResourceCollectorTest, ZeroResourcesAreExcluded) {
  api::Pod p = pod("foo");
  const auto zeros = rl({{"cpu", "0"}, {"custom", "0"}, {"test.com/custom-metric", "0"}});
  p.spec.initContainers = {container(zeros, zeros)};
  p.spec.containers = {container(zeros, zeros)};
  EXPECT_EQ(text({p}), "");
}

TEST(PodResourceCollectorTest, OptionalFieldLabels) {
  api::Pod p = pod("foo", "node-one");
  p.spec.schedulerName = "default-scheduler";
  p.spec.priority = 0;
  p.spec.containers = {container(rl({{"cpu", "1"}}))};
  EXPECT_EQ(text({p}), kRequestHead + line("kube_pod_resource_request", "node-one", "foo", "cpu", "cores", "1",
                                           "0", "default-scheduler"));
}

TEST(PodResourceCollectorTest, InitContainersAndRegularContainers) {
  for (const char* initialized : {"True", "False"}) {
    api::Pod p = pod("foo", "node-one");
    p.spec.initContainers = {container(rl({{"cpu", "2"}, {"custom", "3"}}), rl({{"memory", "1G"}, {"custom", "5"}}))};
    p.spec.containers = {container(rl({{"cpu", "1"}, {"custom", "0"}}), rl({{"memory", "2G"}, {"custom", "6"}}))};
    p.status.conditions = {{.type = "Initialized", .status = initialized}};
    EXPECT_EQ(text({p}), kLimitHead + lim("custom", "", "6", "node-one") + lim("memory", "bytes", "2e+09", "node-one") +
                             kRequestHead + req("cpu", "cores", "2", "node-one") +
                             req("custom", "", "3", "node-one"))
        << initialized;
  }
}

TEST(PodResourceCollectorTest, AggregateContainerRequestsAndLimits) {
  api::Pod p = pod("foo");
  p.spec.containers = {container(rl({{"cpu", "1"}}), rl({{"cpu", "2"}})),
                       container(rl({{"memory", "1G"}}), rl({{"memory", "2G"}})),
                       container(rl({{"cpu", "0.5"}}), rl({{"cpu", "1.25"}})), container({}, rl({{"memory", "2G"}}))};
  EXPECT_EQ(text({p}), kLimitHead + lim("cpu", "cores", "3.25") + lim("memory", "bytes", "4e+09") + kRequestHead +
                           req("cpu", "cores", "1.5") + req("memory", "bytes", "1e+09"));
}

TEST(PodResourceCollectorTest, OverheadAddedToRequestsAndLimits) {
  api::Pod p = pod("foo");
  p.spec.overhead = rl({{"cpu", "0.25"}, {"memory", "0.75G"}, {"custom", "0.5"}});
  p.spec.initContainers = {container(rl({{"cpu", "2"}, {"custom", "3"}}), rl({{"memory", "1G"}, {"custom", "5"}}))};
  p.spec.containers = {container(rl({{"cpu", "1"}, {"custom", "0"}}), rl({{"memory", "2G"}, {"custom", "6"}}))};
  EXPECT_EQ(text({p}), kLimitHead + lim("custom", "", "6.5") + lim("memory", "bytes", "2.75e+09") + kRequestHead +
                           req("cpu", "cores", "2.25") + req("custom", "", "3.5") +
                           req("memory", "bytes", "7.5e+08"));
}

TEST(PodResourceCollectorTest, UnitsForStandardResources) {
  api::Pod p = pod("foo");
  p.spec.containers = {container(rl({{"storage", "5"}, {"ephemeral-storage", "6"}}),
                                 rl({{"hugepages-x", "1"},
                                     {"hugepages-", "2"},
                                     {"attachable-volumes-aws", "3"},
                                     {"attachable-volumes-", "4"}}))};
  EXPECT_EQ(text({p}), kLimitHead + lim("attachable-volumes-", "integer", "4") +
                           lim("attachable-volumes-aws", "integer", "3") + lim("hugepages-", "bytes", "2") +
                           lim("hugepages-x", "bytes", "1") + kRequestHead +
                           req("ephemeral-storage", "bytes", "6") + req("storage", "bytes", "5"));
}

TEST(PodResourceCollectorTest, PodLevelResources) {
  api::Pod p = pod("foo");
  p.spec.resources = api::ResourceRequirements{rl({{"cpu", "4"}, {"memory", "8G"}}), rl({{"cpu", "4"}, {"memory", "8G"}})};
  const auto zeros = rl({{"cpu", "0"}, {"memory", "0"}});
  p.spec.containers = {container(rl({{"cpu", "2"}, {"memory", "4G"}}), rl({{"cpu", "2"}, {"memory", "4G"}})),
                       container(zeros, zeros)};
  EXPECT_EQ(text({p}), kLimitHead + lim("cpu", "cores", "4") + lim("memory", "bytes", "8e+09") + kRequestHead +
                           req("cpu", "cores", "4") + req("memory", "bytes", "8e+09"));
}

TEST(PodResourceCollectorTest, PodLevelResourcesWithUnsupportedResourceType) {
  api::Pod p = pod("foo");
  p.spec.resources = api::ResourceRequirements{rl({{"custom", "2"}}), rl({{"custom", "2"}})};
  p.spec.containers = {container(rl({{"custom", "1"}}), rl({{"custom", "1"}}))};
  EXPECT_EQ(text({p}), kLimitHead + lim("custom", "", "1") + kRequestHead + req("custom", "", "1"));
}

TEST(PodResourceCollectorTest, PodLevelResourcesWithAggregatedContainerLimits) {
  api::Pod p = pod("foo");
  p.spec.resources = api::ResourceRequirements{{}, rl({{"cpu", "2"}, {"memory", "4G"}})};
  p.spec.containers = {container({}, rl({{"cpu", "1"}, {"memory", "2G"}})),
                       container({}, rl({{"cpu", "2"}, {"memory", "3G"}}))};
  EXPECT_EQ(text({p}), kLimitHead + lim("cpu", "cores", "3") + lim("memory", "bytes", "5e+09") + kRequestHead +
                           req("cpu", "cores", "2") + req("memory", "bytes", "4e+09"));
}

TEST(PodResourceCollectorTest, PodLevelResourcesWithMissingRequests) {
  api::Pod p = pod("foo");
  p.spec.resources = api::ResourceRequirements{rl({{"cpu", "2"}, {"memory", "4G"}}), {}};
  p.spec.containers = {container(rl({{"cpu", "1"}, {"memory", "2G"}}), rl({{"cpu", "1"}, {"memory", "2G"}}))};
  EXPECT_EQ(text({p}), kLimitHead + lim("cpu", "cores", "2") + lim("memory", "bytes", "4e+09") + kRequestHead +
                           req("cpu", "cores", "1") + req("memory", "bytes", "2e+09"));
}

}  // namespace
}  // namespace ks::metrics
