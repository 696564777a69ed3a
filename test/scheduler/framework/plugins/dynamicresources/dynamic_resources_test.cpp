// Ports upstream (v1.34.4) plugins/dynamicresources/dynamicresources_test.go: TestPlugin (every case, by
// name, with its expected statuses, API objects, assumed and in-flight claims after each extension point),
// Test_isSchedulableAfterClaimChange and (v1.37) TestIsSchedulableAfterTargetPodUpdate (every case). As
// upstream, the plugin runs over an informer factory on the (in-memory) API server; claims and classes are
// created through the API before the factory starts, and the test drives PreEnqueue, PreFilter, Filter per
// node, Reserve, Unreserve, PreBindPreFlight, PreBind and PostFilter as upstream's driver does.
//
// Differences from upstream:
//   - The DRAExtendedResource cases are ported from v1.37.2; the claim PreBind creates gets a random name
//     suffix from the in-memory API server, compared as upstream's fake "-0". Not ported:
//     the claim-creation metric checks (no resourceclaim_creates_total metric here).
//     "extended-resource-name-with-resources-fail-patch" also checks what Unreserve then does.
//   - "canceled": Filter is cancelled through the handle's stop token (the scheduler's shutdown), whose
//     cause reads "context canceled" rather than the test's own cause "test canceling Filter".
//   - "timeout": the 1ns filterTimeout is set through setFilterTimeoutForTest (the args hold milliseconds).
//   - The plugin runs on a manual clock (claims' timestamps are relative to kStart), stepped while PreBind
//     waits for binding conditions: "prebind-fail-with-binding-timeout" takes no time, not ~15s.
//   - "backoff-wrong-new-object" / "backoff-wrong-old-object": an object of another kind (a Pod) stands for
//     upstream's string, which an EventObject cannot hold.
//   - PostFilter takes the first unavailable claim rather than a random one (no case depends on it).
//   - Objects are compared without the fields the API server assigns (uid, resourceVersion,
//     creationTimestamp, generation) and without allocationTimestamp, as upstream ignores UID,
//     ResourceVersion and AllocationTimestamp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "pkg/api/json/codec.h"
#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/framework/plugins/dynamicresources/dra_manager.h"
#include "pkg/scheduler/framework/plugins/dynamicresources/dynamic_resources.h"
#include "pkg/scheduler/metrics/metrics.h"
#include "pkg/util/manual_clock.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::framework {
[[maybe_unused]] static void PrintTo(const Status& s, std::ostream* os) {
  *os << s.toString();
}
}  // namespace ks::framework

namespace ks::plugins::dynamicresources {
namespace {

using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using framework::Status;
using ClaimPtr = std::shared_ptr<const api::ResourceClaim>;

// ---- Test objects (upstream's package variables) ----

// The time the cases are built at (claims' timestamps); the plugin's manual clock starts a moment later,
// as upstream's time.Now() has moved on when the plugin runs.
const Clock::TimePoint kStart = ManualClock().now();
const std::string kNodeName = "worker";
const std::string kNode2Name = "worker-2";
const std::string kNode3Name = "worker-3";
const std::string kDriver = "some-driver";
const std::string kDriver2 = "some-driver-2";
const std::string kPodName = "my-pod";
const std::string kPodUID = "1234";
const std::string kResourceName = "my-resource";
const std::string kResourceName2 = kResourceName + "-2";
const std::string kClaimName = kPodName + "-" + kResourceName;
const std::string kClaimName2 = kPodName + "-" + kResourceName2;
const std::string kClassName = "my-resource-class";
const std::string kNamespace = "default";
const std::string kAttrName = "healthy";

api::DeviceClass deviceClass() {
  api::DeviceClass c;
  c.metadata.name = kClassName;
  return c;
}

api::Pod makePod(const std::vector<api::PodResourceClaim>& claims) {
  api::Pod p = ks::testing::MakePod().name(kPodName).namespace_(kNamespace).uid(kPodUID).obj();
  p.spec.resourceClaims = claims;
  return p;
}
api::PodResourceClaim byName(const std::string& name, const std::string& claim) {
  return api::PodResourceClaim{name, claim, std::nullopt};
}
api::PodResourceClaim byTemplate(const std::string& name, const std::string& tmpl) {
  return api::PodResourceClaim{name, std::nullopt, tmpl};
}
api::Pod podWithClaimName() {
  return makePod({byName(kResourceName, kClaimName)});
}
api::Pod podWithClaimTemplate() {
  return makePod({byTemplate(kResourceName, kClaimName)});
}
api::Pod podWithClaimTemplateInStatus() {
  api::Pod p = podWithClaimTemplate();
  p.status.resourceClaimStatuses = {api::PodResourceClaimStatus{p.spec.resourceClaims[0].name, kClaimName}};
  return p;
}
api::Pod podWithTwoClaimTemplates() {
  return makePod({byTemplate(kResourceName, kClaimName), byTemplate(kResourceName2, kClaimName)});
}
api::Pod podWithTwoClaimNames() {
  return makePod({byName(kResourceName, kClaimName), byName(kResourceName2, kClaimName2)});
}

api::Node makeNode(const std::string& name) {
  return ks::testing::MakeNode().name(name).label("kubernetes.io/hostname", name).obj();
}

api::ResourceSlice makeSlice(const std::string& nodeName, const std::string& driver) {
  api::ResourceSlice s;
  s.metadata.name = nodeName + "-" + driver;
  s.spec.nodeName = nodeName;
  s.spec.pool.name = nodeName;
  s.spec.pool.resourceSliceCount = 1;
  s.spec.driver = driver;
  return s;
}
api::ResourceSlice& addDevice(api::ResourceSlice& s, const std::string& name,
                              std::map<std::string, api::DeviceAttribute> attrs = {}) {
  api::Device d;
  d.name = name;
  d.attributes = std::move(attrs);
  s.spec.devices.push_back(std::move(d));
  return s;
}
api::ResourceSlice workerNodeSlice() {
  auto s = makeSlice(kNodeName, kDriver);
  return addDevice(s, "instance-1");
}
api::ResourceSlice largeWorkerNodeSlice() {
  auto s = makeSlice(kNodeName, kDriver);
  for (const char* d : {"instance-1", "instance-2", "instance-3", "instance-4"}) addDevice(s, d);
  return s;
}
api::DeviceAttribute boolAttr(bool v) {
  api::DeviceAttribute a;
  a.boolValue = v;
  return a;
}
api::ResourceSlice workerNode2Slice() {
  auto s = makeSlice(kNode2Name, kDriver);
  return addDevice(s, "instance-1", {{kAttrName, boolAttr(true)}});
}
api::ResourceSlice workerNode3Slice() {
  auto s = makeSlice(kNode3Name, kDriver);
  return addDevice(s, "instance-1", {{kAttrName, boolAttr(true)}});
}

api::DeviceSelector brokenSelector() {
  return api::DeviceSelector{api::CELDeviceSelector{"device.attributes[\"" + kDriver + "\"]." + kAttrName}};
}

// st.ResourceClaimWrapper.
class ClaimWrapper {
 public:
  ClaimWrapper() = default;
  explicit ClaimWrapper(api::ResourceClaim c) : c_(std::move(c)) {}
  ClaimWrapper& name(const std::string& n) {
    c_.metadata.name = n;
    return *this;
  }
  ClaimWrapper& namespace_(const std::string& n) {
    c_.metadata.namespace_ = n;
    return *this;
  }
  ClaimWrapper& request(const std::string& className) {
    api::DeviceRequest r;
    r.name = "req-" + std::to_string(c_.spec.devices.requests.size() + 1);
    api::ExactDeviceRequest e;
    e.allocationMode = std::string(api::kDeviceAllocationModeExactCount);
    e.count = 1;
    e.deviceClassName = className;
    r.exactly = e;
    c_.spec.devices.requests.push_back(std::move(r));
    return *this;
  }
  ClaimWrapper& requestWithPrioritizedList(const std::string& className) {
    api::DeviceRequest r;
    r.name = "req-" + std::to_string(c_.spec.devices.requests.size() + 1);
    api::DeviceSubRequest sub;
    sub.name = "subreq-1";
    sub.allocationMode = std::string(api::kDeviceAllocationModeExactCount);
    sub.count = 1;
    sub.deviceClassName = className;
    r.firstAvailable.push_back(sub);
    c_.spec.devices.requests.push_back(std::move(r));
    return *this;
  }
  // st.NamedRequestWithPrioritizedList: subrequests given as (name, count); `selector` (CEL) on the first.
  ClaimWrapper& namedRequestWithPrioritizedList(const std::string& name,
                                                std::vector<std::pair<std::string, int64_t>> subs,
                                                const std::string& className = kClassName,
                                                const std::string& firstSelector = "") {
    api::DeviceRequest r;
    r.name = name;
    for (const auto& [subName, count] : subs) {
      api::DeviceSubRequest sub;
      sub.name = subName;
      sub.allocationMode = std::string(api::kDeviceAllocationModeExactCount);
      sub.count = count;
      sub.deviceClassName = className;
      if (r.firstAvailable.empty() && !firstSelector.empty()) {
        sub.selectors.push_back(api::DeviceSelector{api::CELDeviceSelector{firstSelector}});
      }
      r.firstAvailable.push_back(sub);
    }
    c_.spec.devices.requests.push_back(std::move(r));
    return *this;
  }
  ClaimWrapper& ownerReference(const std::string& name, const std::string& uid) {
    c_.metadata.ownerReferences = {api::OwnerReference{"v1", "Pod", name, uid, true, std::nullopt}};
    return *this;
  }
  ClaimWrapper& allocation(const std::optional<api::AllocationResult>& a) {
    auto& f = c_.metadata.finalizers;
    if (std::find(f.begin(), f.end(), api::kResourceClaimFinalizer) == f.end()) {
      f.emplace_back(api::kResourceClaimFinalizer);
    }
    c_.status.allocation = a;
    return *this;
  }
  ClaimWrapper& allocatedDeviceStatuses(std::vector<api::AllocatedDeviceStatus> d) {
    c_.status.devices = std::move(d);
    return *this;
  }
  ClaimWrapper& reservedFor(std::vector<api::ResourceClaimConsumerReference> r) {
    c_.status.reservedFor = std::move(r);
    return *this;
  }
  ClaimWrapper& reservedForPod(const std::string& name, const std::string& uid) {
    return reservedFor({api::ResourceClaimConsumerReference{"", "pods", name, uid}});
  }
  api::ResourceClaim obj() const { return c_; }

 private:
  api::ResourceClaim c_;
};

ClaimWrapper makeClaim() {
  return ClaimWrapper();
}
ClaimWrapper fromClaim(const api::ResourceClaim& c) {
  return ClaimWrapper(c);
}

api::NodeSelector matchFieldsName(const std::string& node) {
  api::NodeSelector s;
  api::NodeSelectorTerm t;
  t.matchFields.push_back(api::NodeSelectorRequirement{"metadata.name", "In", {node}});
  s.nodeSelectorTerms.push_back(t);
  return s;
}
api::NodeSelector matchExpression(const std::string& key, const std::string& value) {
  api::NodeSelector s;
  api::NodeSelectorTerm t;
  t.matchExpressions.push_back(api::NodeSelectorRequirement{key, "In", {value}});
  s.nodeSelectorTerms.push_back(t);
  return s;
}

api::AllocationResult allocationFor(const std::string& driver, const std::string& device,
                                    const std::string& request) {
  api::AllocationResult a;
  api::DeviceRequestAllocationResult r;
  r.driver = driver;
  r.pool = kNodeName;
  r.device = device;
  r.request = request;
  a.devices.results.push_back(r);
  a.nodeSelector = matchFieldsName(kNodeName);
  return a;
}
api::AllocationResult allocationResult() {
  return allocationFor(kDriver, "instance-1", "req-1");
}
api::AllocationResult allocationResult2() {
  return allocationFor(kDriver2, "instance-2", "req-2");
}
api::AllocationResult allocationResultWithPrioritizedList() {
  return allocationFor(kDriver, "instance-1", "req-1/subreq-1");
}

api::ResourceClaim claim() {
  return makeClaim().name(kClaimName).namespace_(kNamespace).request(kClassName).obj();
}
api::ResourceClaim largeClaim() {
  auto w = makeClaim().name(kClaimName).namespace_(kNamespace);
  for (int i = 0; i < 5; ++i) w.request(kClassName);
  return w.obj();
}
api::ResourceClaim claim2() {
  return makeClaim().name(kClaimName2).namespace_(kNamespace).request(kClassName).obj();
}
api::ResourceClaim claimWithPrioritizedList() {
  return makeClaim().name(kClaimName).namespace_(kNamespace).requestWithPrioritizedList(kClassName).obj();
}
api::ResourceClaim pendingClaim() {
  return fromClaim(claim()).ownerReference(kPodName, kPodUID).obj();
}
api::ResourceClaim pendingClaim2() {
  return fromClaim(claim2()).ownerReference(kPodName, kPodUID).obj();
}
api::ResourceClaim pendingClaimWithPrioritizedList() {
  return fromClaim(claimWithPrioritizedList()).ownerReference(kPodName, kPodUID).obj();
}
api::ResourceClaim inUseClaim() {
  return fromClaim(pendingClaim()).allocation(allocationResult()).reservedForPod(kPodName, kPodUID).obj();
}
api::ResourceClaim inUseClaimWithPrioritizedList() {
  return fromClaim(pendingClaimWithPrioritizedList())
      .allocation(allocationResultWithPrioritizedList())
      .reservedForPod(kPodName, kPodUID)
      .obj();
}
api::ResourceClaim allocatedClaim() {
  return fromClaim(pendingClaim()).allocation(allocationResult()).obj();
}
api::ResourceClaim allocatedClaim2() {
  return fromClaim(pendingClaim2()).allocation(allocationResult2()).obj();
}
api::ResourceClaim allocatedClaimWithPrioritizedList() {
  return fromClaim(pendingClaimWithPrioritizedList()).allocation(allocationResultWithPrioritizedList()).obj();
}
api::ResourceClaim allocatedClaimWithWrongTopology() {
  api::AllocationResult a;
  a.nodeSelector = matchExpression("no-such-label", "no-such-value");
  return fromClaim(allocatedClaim()).allocation(a).obj();
}
api::ResourceClaim allocatedClaimWithGoodTopology() {
  api::AllocationResult a;
  a.nodeSelector = matchExpression("kubernetes.io/hostname", kNodeName);
  return fromClaim(allocatedClaim()).allocation(a).obj();
}
api::ResourceClaim otherClaim() {
  return makeClaim().name("not-my-claim").namespace_(kNamespace).request(kClassName).obj();
}
api::ResourceClaim otherAllocatedClaim() {
  return fromClaim(otherClaim()).allocation(allocationResult()).obj();
}

const std::vector<std::string> kBindingConditions = {"condition"};
const std::vector<std::string> kBindingFailureConditions = {"failed"};

api::ResourceSlice fabricSlice(const std::string& driver, const std::string& device) {
  auto s = makeSlice(kNodeName, driver);
  addDevice(s, device);
  s.spec.devices[0].bindsToNode = true;
  s.spec.devices[0].bindingConditions = kBindingConditions;
  s.spec.devices[0].bindingFailureConditions = kBindingFailureConditions;
  s.spec.nodeName.reset();
  s.spec.nodeSelector = matchFieldsName(kNodeName);
  return s;
}
api::AllocationResult allocationWithBindingConditions(const std::string& driver, const std::string& device,
                                                      const std::string& request) {
  api::AllocationResult a = allocationFor(driver, device, request);
  a.devices.results[0].bindingConditions = kBindingConditions;
  a.devices.results[0].bindingFailureConditions = kBindingFailureConditions;
  return a;
}
api::AllocatedDeviceStatus deviceStatus(const std::string& driver, const std::string& device,
                                        std::vector<std::pair<std::string, std::string>> conditions) {
  api::AllocatedDeviceStatus d;
  d.driver = driver;
  d.pool = kNodeName;
  d.device = device;
  for (const auto& [type, status] : conditions) {
    api::Condition c;
    c.type = type;
    c.status = status;
    d.conditions.push_back(c);
  }
  return d;
}
// An allocated claim whose device reports its binding conditions: met ("condition" True) or failed.
api::ResourceClaim withBindingStatus(const api::ResourceClaim& allocated, const std::string& driver,
                                     const std::string& device, const std::string& request, bool failed) {
  return fromClaim(allocated)
      .allocation(allocationWithBindingConditions(driver, device, request))
      .allocatedDeviceStatuses({deviceStatus(
          driver, device, {{"condition", failed ? "False" : "True"}, {"failed", failed ? "True" : "False"}})})
      .obj();
}
api::ResourceClaim boundClaim() {
  return withBindingStatus(allocatedClaim(), kDriver, "instance-1", "req-1", false);
}
api::ResourceClaim boundClaim2() {
  return withBindingStatus(allocatedClaim2(), kDriver2, "instance-2", "req-2", false);
}
api::ResourceClaim failedBindingClaim() {
  return withBindingStatus(allocatedClaim(), kDriver, "instance-1", "req-1", true);
}
api::ResourceClaim failedBindingClaim2() {
  return withBindingStatus(allocatedClaim2(), kDriver2, "instance-2", "req-2", true);
}

api::ResourceSlice taintDevices(api::ResourceSlice s) {
  for (auto& d : s.spec.devices)
    d.taints.push_back(api::DeviceTaint{"taint-key", "taint-value", "NoSchedule", {}});
  return s;
}
api::ResourceClaim reserve(const api::ResourceClaim& c, const api::Pod& pod) {
  return fromClaim(c).reservedForPod(pod.metadata.name, pod.metadata.uid).obj();
}
api::ResourceClaim adminAccess(api::ResourceClaim c) {
  for (auto& r : c.spec.devices.requests) r.exactly->adminAccess = true;
  if (c.status.allocation) {
    for (auto& r : c.status.allocation->devices.results) r.adminAccess = true;
  }
  return c;
}
api::ResourceClaim breakCELInClaim(api::ResourceClaim c) {
  for (auto& r : c.spec.devices.requests) {
    for (auto& s : r.exactly->selectors) s = brokenSelector();
    if (r.exactly->selectors.empty()) r.exactly->selectors = {brokenSelector()};
  }
  return c;
}
api::DeviceClass breakCELInClass(api::DeviceClass c) {
  for (auto& s : c.spec.selectors) s = brokenSelector();
  if (c.spec.selectors.empty()) c.spec.selectors = {brokenSelector()};
  return c;
}
api::ResourceClaim updateDeviceClassName(api::ResourceClaim c, const std::string& className) {
  for (auto& r : c.spec.devices.requests) {
    if (r.firstAvailable.empty()) {
      r.exactly->deviceClassName = className;
    } else {
      for (auto& sub : r.firstAvailable) sub.deviceClassName = className;
    }
  }
  return c;
}
api::ResourceClaim withTimestampedBindingConditions(
    std::chrono::seconds age, std::vector<std::pair<std::string, std::string>> conditions) {
  api::ResourceClaim c = allocatedClaim();
  c.status.allocation = allocationWithBindingConditions(kDriver, "instance-1", "req-1");
  c.status.allocation->allocationTimestamp = std::chrono::floor<std::chrono::seconds>(kStart - age);
  c.status.devices = {deviceStatus(kDriver, "instance-1", std::move(conditions))};
  return c;
}

// ---- The table ----

using ClaimChange = std::function<api::ResourceClaim(api::ResourceClaim)>;

struct Expect {
  std::optional<Status> status;  // nullopt: success (upstream nil)
  ClaimChange changes;
  std::vector<api::ResourceClaim> added;  // created by the step
  std::vector<std::string> removed;       // names of claims the step deleted
  std::optional<api::ResourceClaim> assumedClaim;
  std::optional<api::ResourceClaim> inFlightClaim;
};

struct Want {
  Expect preenqueue;
  Expect prefilter;
  std::map<std::string, Expect> filter;
  Expect reserve;
  Expect unreserve;
  std::optional<Status> prebindPreFlight;
  Expect prebind;
  Expect postbind;
  Expect postfilter;
  std::optional<Expect> unreserveAfterBindFailure;
  std::optional<Expect> unreserveBeforePreBind;
};

struct Prepare {
  ClaimChange filter, prescore, reserve, unreserve, prebind, postbind, postfilter;
};

struct PluginCase {
  std::string name;
  std::optional<config::DynamicResourcesArgs> args;
  std::vector<api::Node> nodes;  // workerNode when empty
  api::Pod pod;
  std::vector<api::ResourceClaim> claims;
  std::vector<api::DeviceClass> classes;
  std::vector<api::ResourceSlice> slices;
  Prepare prepare;
  Want want;
  bool cancelFilter = false;
  std::optional<std::chrono::nanoseconds> filterTimeout;
  bool enableDRAAdminAccess = false;
  bool enableDRADeviceBindingConditions = false;
  bool enableDRAResourceClaimDeviceStatus = false;
  bool disableDRA = false;
  bool enableDRAPrioritizedList = false;
  bool enableDRADeviceTaints = false;
  bool disableDRASchedulerFilterTimeout = false;
  bool enableDRAExtendedResource = false;
  // The pod exists in the API (PreBind patches its status for extended resources).
  bool podInAPI = false;
  // Creating a ResourceClaim / patching the pod's status fails with this message (upstream's reactors).
  std::string failClaimCreate;
  std::string failPodStatusPatch;
  std::string skip;
  // Checks the plugin's metrics (the Prometheus text) after the run.
  std::function<void(const std::string&)> metrics;
};

[[maybe_unused]] void PrintTo(const PluginCase& c, std::ostream* os) {
  *os << c.name;
}

Status unschedulable(std::string msg) {
  return Status(Code::Unschedulable, std::move(msg));
}
Status unresolvable(std::string msg) {
  return Status(Code::UnschedulableAndUnresolvable, std::move(msg));
}

// The claim named kClaimName with `f` applied; other claims unchanged.
ClaimChange forClaim(std::function<void(api::ResourceClaim&)> f) {
  return [f](api::ResourceClaim c) {
    if (c.metadata.name == kClaimName) f(c);
    return c;
  };
}
ClaimChange allocatedAndReserved(const api::ResourceClaim& allocated, const api::ResourceClaim& inUse,
                                 bool setFinalizers = true) {
  return forClaim([=](api::ResourceClaim& c) {
    if (setFinalizers) c.metadata.finalizers = allocated.metadata.finalizers;
    c.status = inUse.status;
  });
}
ClaimChange addReservation() {
  return [](api::ResourceClaim c) {
    return fromClaim(c)
        .reservedFor({api::ResourceClaimConsumerReference{"", "pods", kPodName, kPodUID}})
        .obj();
  };
}
ClaimChange deallocate() {
  return [](api::ResourceClaim c) {
    return fromClaim(c).allocation(std::nullopt).allocatedDeviceStatuses({}).obj();
  };
}

// The usual successful allocation of pendingClaim on workerNode.
Want allocates(const api::ResourceClaim& allocated, const api::ResourceClaim& inUse) {
  Want w;
  w.reserve.inFlightClaim = allocated;
  w.prebind.assumedClaim = reserve(allocated, podWithClaimName());
  w.prebind.changes = allocatedAndReserved(allocated, inUse);
  w.postbind.assumedClaim = reserve(allocated, podWithClaimName());
  return w;
}

// Upstream's metrics checks: one increment of allocations_total and one wait_duration sample, both for
// driver kDriver, profile "default-scheduler" and `status`.
std::function<void(const std::string&)> oneBindingConditionsOutcome(const std::string& status) {
  return [status](const std::string& text) {
    const std::string labels =
        "{driver=\"" + kDriver + "\",profile=\"default-scheduler\",status=\"" + status + "\"}";
    EXPECT_NE(text.find("scheduler_dra_bindingconditions_allocations_total" + labels + " 1\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("scheduler_dra_bindingconditions_wait_duration_seconds_count" + labels + " 1\n"),
              std::string::npos)
        << text;
  };
}

// ---- DRAExtendedResource (v1.37.2) ----

const std::string kExtendedResourceName = "example.com/gpu";
const std::string kExtendedResourceName2 = "example.com/gpu2";
const std::string kImplicitExtendedResourceName = "deviceclass.resource.kubernetes.io/my-resource-class";

api::DeviceClass deviceClassWithExtendResourceName(const std::string& name = kClassName,
                                                   const std::string& ext = kExtendedResourceName) {
  api::DeviceClass c;
  c.metadata.name = name;
  c.spec.extendedResourceName = ext;
  return c;
}
api::Pod podWithExtendedResources(const std::vector<ks::testing::ResourceMap>& containers) {
  auto w = ks::testing::MakePod().name(kPodName).namespace_(kNamespace).uid(kPodUID);
  for (const auto& c : containers) w.req(c);
  return w.obj();
}
api::Pod podWithExtendedResourceName() {
  return podWithExtendedResources({{{kExtendedResourceName, "1"}}});
}
api::Node nodeWithExtendedResource(const std::string& quantity) {
  return ks::testing::MakeNode()
      .name(kNodeName)
      .label("kubernetes.io/hostname", kNodeName)
      .capacity({{kExtendedResourceName, quantity}})
      .obj();
}
// One device per result on workerNode's pool.
api::AllocationResult extendedAllocation(
    const std::vector<std::pair<std::string, std::string>>& deviceToRequest,
    const std::string& node = kNodeName) {
  api::AllocationResult a;
  for (const auto& [device, request] : deviceToRequest) {
    api::DeviceRequestAllocationResult r;
    r.driver = kDriver;
    r.pool = kNodeName;
    r.device = device;
    r.request = request;
    a.devices.results.push_back(r);
  }
  a.nodeSelector = matchFieldsName(node);
  return a;
}
// The claim for the pod's extended resources: in memory ("<extended-resources>") or as created.
api::ResourceClaim extendedResourceClaim(
    bool created, const std::vector<std::tuple<std::string, std::string, int64_t>>& requests,
    const api::AllocationResult& allocation) {
  api::ResourceClaim c;
  c.metadata.name = created ? kPodName + "-extended-resources-0" : std::string(kSpecialClaimInMemName);
  c.metadata.generateName = kPodName + "-extended-resources-";
  c.metadata.namespace_ = kNamespace;
  c.metadata.annotations[std::string(framework::kExtendedResourceClaimAnnotation)] = "true";
  c.metadata.ownerReferences = {api::OwnerReference{"v1", "Pod", kPodName, kPodUID, true, std::nullopt}};
  for (const auto& [name, cls, count] : requests) {
    api::DeviceRequest r;
    r.name = name;
    r.exactly.emplace();
    r.exactly->deviceClassName = cls;
    r.exactly->allocationMode = std::string(api::kDeviceAllocationModeExactCount);
    r.exactly->count = count;
    c.spec.devices.requests.push_back(std::move(r));
  }
  return fromClaim(c).allocation(allocation).obj();
}
api::ResourceClaim singleExtendedClaim(bool created, const std::string& node = kNodeName) {
  return extendedResourceClaim(created, {{"container-0-request-0", kClassName, 1}},
                               extendedAllocation({{"instance-1", "container-0-request-0"}}, node));
}

void addExtendedResourceCases(std::vector<PluginCase>& cases) {
  const api::Pod pod = podWithExtendedResourceName();
  // The usual success: in flight after Reserve, created, allocated and reserved by PreBind.
  const auto allocatesExtended = [&](const api::ResourceClaim& inMemory, const api::ResourceClaim& created,
                                     const api::Pod& p) {
    Want w;
    w.reserve.inFlightClaim = inMemory;
    w.prebind.assumedClaim = reserve(created, p);
    w.prebind.added = {reserve(created, p)};
    w.postbind.assumedClaim = reserve(created, p);
    return w;
  };
  {
    PluginCase c{.name = "extended-resource-name-with-node-resource",
                 .nodes = {nodeWithExtendedResource("1")},
                 .pod = pod,
                 .classes = {deviceClassWithExtendResourceName()},
                 .enableDRAExtendedResource = true};
    cases.push_back(c);
  }
  {
    const api::Pod pod2 =
        podWithExtendedResources({{{kExtendedResourceName, "1"}, {kExtendedResourceName2, "1"}}});
    const auto claim2 = [](bool created) {
      return extendedResourceClaim(created, {{"container-0-request-1", kClassName + "2", 1}},
                                   extendedAllocation({{"instance-1", "container-0-request-1"}}));
    };
    PluginCase c{.name = "extended-resource-one-device-plugin-one-dra",
                 .nodes = {nodeWithExtendedResource("1")},
                 .pod = pod2,
                 .classes = {deviceClassWithExtendResourceName(),
                             deviceClassWithExtendResourceName(kClassName + "2", kExtendedResourceName2)},
                 .slices = {workerNodeSlice()},
                 .enableDRAExtendedResource = true,
                 .podInAPI = true};
    c.want = allocatesExtended(claim2(false), claim2(true), pod2);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "extended-resource-name-with-zero-allocatable",
                 .nodes = {nodeWithExtendedResource("0")},
                 .pod = pod,
                 .classes = {deviceClassWithExtendResourceName()},
                 .slices = {workerNodeSlice()},
                 .enableDRAExtendedResource = true,
                 .podInAPI = true};
    c.want = allocatesExtended(singleExtendedClaim(false), singleExtendedClaim(true), pod);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "non-DRA-extended-resource-name-with-zero-allocatable",
                 .nodes = {nodeWithExtendedResource("0")},
                 .pod = pod,
                 .classes = {deviceClass()},
                 .slices = {workerNodeSlice()},
                 .enableDRAExtendedResource = true,
                 .podInAPI = true};
    c.want.prefilter.status = Status(Code::Skip);
    c.want.prebindPreFlight = Status(Code::Skip);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "extended-resource-name-no-resource",
                 .pod = pod,
                 .classes = {deviceClassWithExtendResourceName()},
                 .enableDRAExtendedResource = true};
    c.want.filter[kNodeName].status = unresolvable("cannot allocate all claims");
    c.want.postfilter.status = Status(Code::Unschedulable);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "extended-resource-name-with-resources",
                 .pod = pod,
                 .classes = {deviceClassWithExtendResourceName()},
                 .slices = {workerNodeSlice()},
                 .enableDRAExtendedResource = true,
                 .podInAPI = true};
    c.want = allocatesExtended(singleExtendedClaim(false), singleExtendedClaim(true), pod);
    cases.push_back(c);
  }
  {
    const api::Pod implicitPod =
        podWithExtendedResources({{{kImplicitExtendedResourceName, "1"}, {kExtendedResourceName, "2"}}});
    const auto claim = [](bool created) {
      return extendedResourceClaim(
          created, {{"container-0-request-0", kClassName, 1}, {"container-0-request-1", kClassName, 2}},
          extendedAllocation({{"instance-1", "container-0-request-0"},
                              {"instance-2", "container-0-request-1"},
                              {"instance-3", "container-0-request-1"}}));
    };
    PluginCase c{.name = "implicit-extended-resource-name-with-resources",
                 .pod = implicitPod,
                 .classes = {deviceClassWithExtendResourceName()},
                 .slices = {largeWorkerNodeSlice()},
                 .enableDRAExtendedResource = true,
                 .podInAPI = true};
    c.want = allocatesExtended(claim(false), claim(true), implicitPod);
    cases.push_back(c);
  }
  {
    const api::Pod twoContainers =
        podWithExtendedResources({{{kImplicitExtendedResourceName, "1"}}, {{kExtendedResourceName, "2"}}});
    const auto claim = [](bool created) {
      return extendedResourceClaim(
          created, {{"container-0-request-0", kClassName, 1}, {"container-1-request-0", kClassName, 2}},
          extendedAllocation({{"instance-1", "container-0-request-0"},
                              {"instance-2", "container-1-request-0"},
                              {"instance-3", "container-1-request-0"}}));
    };
    PluginCase c{.name = "implicit-extended-resource-name-two-containers-with-resources",
                 .pod = twoContainers,
                 .classes = {deviceClassWithExtendResourceName()},
                 .slices = {largeWorkerNodeSlice()},
                 .enableDRAExtendedResource = true,
                 .podInAPI = true};
    c.want = allocatesExtended(claim(false), claim(true), twoContainers);
    cases.push_back(c);
  }
  {
    // The claim is created, allocated and reserved, but the pod's status cannot name it: PreBind fails and
    // the allocation stays in flight until Unreserve, which deletes the claim.
    PluginCase c{.name = "extended-resource-name-with-resources-fail-patch",
                 .pod = pod,
                 .classes = {deviceClassWithExtendResourceName()},
                 .slices = {workerNodeSlice()},
                 .enableDRAExtendedResource = true,
                 .podInAPI = true,
                 .failPodStatusPatch = "patch error"};
    c.want = allocatesExtended(singleExtendedClaim(false), singleExtendedClaim(true), pod);
    c.want.prebind.inFlightClaim = singleExtendedClaim(false);
    c.want.prebind.status =
        Status::error("update pod default/" + kPodName + " ExtendedResourceClaimStatus: patch error");
    c.want.unreserveAfterBindFailure = Expect{.removed = {kPodName + "-extended-resources-0"}};
    cases.push_back(c);
  }
  for (const auto& [name, node] :
       {std::pair{"extended-resource-name-with-resources-has-claim", kNodeName},
        std::pair{"extended-resource-name-with-resources-delete-claim", kNode2Name}}) {
    const api::ResourceClaim existing = singleExtendedClaim(true, node);
    PluginCase c{.name = name,
                 .pod = pod,
                 .claims = {existing},
                 .classes = {deviceClassWithExtendResourceName()},
                 .slices = {workerNodeSlice()},
                 .enableDRAExtendedResource = true,
                 .podInAPI = true};
    c.want.filter[kNodeName].status = unresolvable("cannot schedule extended resource claim");
    c.want.postfilter.status = unschedulable("deletion of ResourceClaim completed");
    c.want.postfilter.removed = {existing.metadata.name};
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "extended-resource-name-bind-failure",
                 .pod = pod,
                 .classes = {deviceClassWithExtendResourceName()},
                 .slices = {workerNodeSlice()},
                 .enableDRAExtendedResource = true,
                 .podInAPI = true};
    c.want.reserve.inFlightClaim = singleExtendedClaim(false);
    c.want.prebind.assumedClaim = reserve(singleExtendedClaim(true), pod);
    c.want.prebind.added = {reserve(singleExtendedClaim(true), pod)};
    c.want.unreserveAfterBindFailure = Expect{.removed = {kPodName + "-extended-resources-0"}};
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "extended-resource-name-skip-bind",
                 .pod = pod,
                 .classes = {deviceClassWithExtendResourceName()},
                 .slices = {workerNodeSlice()},
                 .enableDRAExtendedResource = true,
                 .podInAPI = true};
    c.want.reserve.inFlightClaim = singleExtendedClaim(false);
    c.want.unreserveBeforePreBind = Expect{};
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "extended-resource-name-claim-creation-failure",
                 .pod = pod,
                 .classes = {deviceClassWithExtendResourceName()},
                 .slices = {workerNodeSlice()},
                 .enableDRAExtendedResource = true,
                 .podInAPI = true,
                 .failClaimCreate = "claim creation errors"};
    c.want.reserve.inFlightClaim = singleExtendedClaim(false);
    c.want.prebind.inFlightClaim = singleExtendedClaim(false);
    c.want.prebind.status = Status::error("claim creation errors");
    c.want.unreserveAfterBindFailure = Expect{.removed = {kPodName + "-extended-resources-0"}};
    cases.push_back(c);
  }
}

std::vector<PluginCase> pluginCases() {
  std::vector<PluginCase> cases;
  // v1.37: the device is named, and a missing key gets a hint.
  const std::string celError =
      "selector #0 on device some-driver/worker/instance-1: CEL runtime error: no such key: " + kAttrName +
      ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for "
      "optional fields";
  {
    PluginCase c{.name = "empty"};
    c.pod = ks::testing::MakePod().name("foo").namespace_("default").obj();
    c.want.prefilter.status = Status(Code::Skip);
    c.want.postfilter.status = Status(Code::Unschedulable);
    c.want.prebindPreFlight = Status(Code::Skip);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "empty-with-extended-resources-enabled", .enableDRAExtendedResource = true};
    c.pod = ks::testing::MakePod().name("foo").namespace_("default").obj();
    c.want.prefilter.status = Status(Code::Skip);
    c.want.postfilter.status = Status(Code::Unschedulable);
    c.want.prebindPreFlight = Status(Code::Skip);
    cases.push_back(c);
  }
  {
    PluginCase c{
        .name = "claim-reference", .pod = podWithClaimName(), .claims = {allocatedClaim(), otherClaim()}};
    c.want.prebind.changes =
        forClaim([](api::ResourceClaim& cl) { cl.status.reservedFor = inUseClaim().status.reservedFor; });
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "claim-template",
                 .pod = podWithClaimTemplateInStatus(),
                 .claims = {allocatedClaim(), otherClaim()}};
    c.want.prebind.changes =
        forClaim([](api::ResourceClaim& cl) { cl.status.reservedFor = inUseClaim().status.reservedFor; });
    cases.push_back(c);
  }
  {
    PluginCase c{
        .name = "missing-claim", .pod = podWithClaimTemplate(), .claims = {allocatedClaim(), otherClaim()}};
    c.want.preenqueue.status = unresolvable("pod \"default/my-pod\": ResourceClaim not created yet");
    cases.push_back(c);
  }
  {
    api::ResourceClaim deleted = allocatedClaim();
    deleted.metadata.deletionTimestamp = std::chrono::floor<std::chrono::seconds>(kStart);
    PluginCase c{.name = "deleted-claim", .pod = podWithClaimTemplateInStatus(), .claims = {deleted}};
    c.want.preenqueue.status = unresolvable("resourceclaim \"my-pod-my-resource\" is being deleted");
    cases.push_back(c);
  }
  {
    api::ResourceClaim wrong = allocatedClaim();
    wrong.metadata.ownerReferences[0].uid += "123";
    PluginCase c{.name = "wrong-claim", .pod = podWithClaimTemplateInStatus(), .claims = {wrong}};
    c.want.preenqueue.status = unresolvable(
        "ResourceClaim default/my-pod-my-resource was not created for pod default/my-pod (pod is not owner)");
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "no-resources",
                 .pod = podWithClaimName(),
                 .claims = {pendingClaim()},
                 .classes = {deviceClass()}};
    c.want.filter[kNodeName].status = unresolvable("cannot allocate all claims");
    c.want.postfilter.status = Status(Code::Unschedulable);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "with-resources",
                 .pod = podWithClaimName(),
                 .claims = {pendingClaim()},
                 .classes = {deviceClass()},
                 .slices = {workerNodeSlice()}};
    c.want = allocates(allocatedClaim(), inUseClaim());
    cases.push_back(c);
  }
  api::ResourceClaim pendingWithFinalizer = pendingClaim();
  pendingWithFinalizer.metadata.finalizers = allocatedClaim().metadata.finalizers;
  {
    PluginCase c{.name = "with-resources-has-finalizer",
                 .pod = podWithClaimName(),
                 .claims = {pendingWithFinalizer},
                 .classes = {deviceClass()},
                 .slices = {workerNodeSlice()}};
    c.want = allocates(allocatedClaim(), inUseClaim());
    c.want.prebind.changes = allocatedAndReserved(allocatedClaim(), inUseClaim(), false);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "with-resources-finalizer-gets-removed",
                 .pod = podWithClaimName(),
                 .claims = {pendingWithFinalizer},
                 .classes = {deviceClass()},
                 .slices = {workerNodeSlice()}};
    c.prepare.prebind = [](api::ResourceClaim cl) {
      cl.metadata.finalizers.clear();
      return cl;
    };
    c.want = allocates(allocatedClaim(), inUseClaim());
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "with-resources-finalizer-gets-added",
                 .pod = podWithClaimName(),
                 .claims = {pendingClaim()},
                 .classes = {deviceClass()},
                 .slices = {workerNodeSlice()}};
    c.prepare.prebind = [](api::ResourceClaim cl) {
      cl.metadata.finalizers = allocatedClaim().metadata.finalizers;
      return cl;
    };
    c.want = allocates(allocatedClaim(), inUseClaim());
    c.want.prebind.changes = allocatedAndReserved(allocatedClaim(), inUseClaim(), false);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "skip-bind",
                 .pod = podWithClaimName(),
                 .claims = {pendingClaim()},
                 .classes = {deviceClass()},
                 .slices = {workerNodeSlice()}};
    c.want.reserve.inFlightClaim = allocatedClaim();
    c.want.unreserveBeforePreBind = Expect{};
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "exhausted-resources",
                 .pod = podWithClaimName(),
                 .claims = {pendingClaim(), otherAllocatedClaim()},
                 .classes = {deviceClass()},
                 .slices = {workerNodeSlice()}};
    c.want.filter[kNodeName].status = unresolvable("cannot allocate all claims");
    c.want.postfilter.status = Status(Code::Unschedulable);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "tainted-device-disabled",
                 .pod = podWithClaimName(),
                 .claims = {pendingClaim()},
                 .classes = {deviceClass()},
                 .slices = {taintDevices(workerNodeSlice())}};
    c.want = allocates(allocatedClaim(), inUseClaim());
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "tainted-device-enabled",
                 .pod = podWithClaimName(),
                 .claims = {pendingClaim()},
                 .classes = {deviceClass()},
                 .slices = {taintDevices(workerNodeSlice())},
                 .enableDRADeviceTaints = true};
    c.want.filter[kNodeName].status = unresolvable("cannot allocate all claims");
    c.want.postfilter.status = Status(Code::Unschedulable);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "request-admin-access-with-DRAAdminAccess-featuregate",
                 .pod = podWithClaimName(),
                 .claims = {adminAccess(pendingClaim()), otherAllocatedClaim()},
                 .classes = {deviceClass()},
                 .slices = {workerNodeSlice()},
                 .enableDRAAdminAccess = true};
    c.want.reserve.inFlightClaim = adminAccess(allocatedClaim());
    c.want.prebind.assumedClaim = reserve(adminAccess(allocatedClaim()), podWithClaimName());
    c.want.prebind.changes = allocatedAndReserved(allocatedClaim(), adminAccess(inUseClaim()));
    c.want.postbind.assumedClaim = reserve(adminAccess(allocatedClaim()), podWithClaimName());
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "request-admin-access-without-DRAAdminAccess-featuregate",
                 .pod = podWithClaimName(),
                 .claims = {adminAccess(pendingClaim()), otherAllocatedClaim()},
                 .classes = {deviceClass()},
                 .slices = {workerNodeSlice()}};
    c.want.filter[kNodeName].status = unresolvable(
        "claim default/my-pod-my-resource, request req-1: admin access is requested, but the feature is "
        "disabled");
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "structured-ignore-allocated-admin-access",
                 .pod = podWithClaimName(),
                 .claims = {pendingClaim(), adminAccess(otherAllocatedClaim())},
                 .classes = {deviceClass()},
                 .slices = {workerNodeSlice()}};
    c.want = allocates(allocatedClaim(), inUseClaim());
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "claim-parameters-CEL-runtime-error",
                 .pod = podWithClaimName(),
                 .claims = {breakCELInClaim(pendingClaim())},
                 .classes = {deviceClass()},
                 .slices = {workerNodeSlice()}};
    c.want.filter[kNodeName].status = Status::error("claim default/my-pod-my-resource: " + celError);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "class-parameters-CEL-runtime-error",
                 .pod = podWithClaimName(),
                 .claims = {pendingClaim()},
                 .classes = {breakCELInClass(deviceClass())},
                 .slices = {workerNodeSlice()}};
    c.want.filter[kNodeName].status = Status::error("class my-resource-class: " + celError);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "CEL-runtime-error-for-one-of-two-nodes",
                 .nodes = {makeNode(kNodeName), makeNode(kNode2Name)},
                 .pod = podWithClaimName(),
                 .claims = {breakCELInClaim(pendingClaim())},
                 .classes = {deviceClass()},
                 .slices = {workerNodeSlice(), workerNode2Slice()}};
    c.want.filter[kNodeName].status = Status::error("claim default/my-pod-my-resource: " + celError);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "CEL-runtime-error-for-one-of-three-nodes",
                 .nodes = {makeNode(kNodeName), makeNode(kNode2Name), makeNode(kNode3Name)},
                 .pod = podWithClaimName(),
                 .claims = {breakCELInClaim(pendingClaim())},
                 .classes = {deviceClass()},
                 .slices = {workerNodeSlice(), workerNode2Slice(), workerNode3Slice()}};
    c.want.filter[kNodeName].status = unresolvable("claim default/my-pod-my-resource: " + celError);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "missing-class", .pod = podWithClaimName(), .claims = {pendingClaim()}};
    c.want.prefilter.status = unresolvable("request req-1: device class " + kClassName + " does not exist");
    c.want.postfilter.status = Status(Code::Unschedulable);
    cases.push_back(c);
  }
  {
    PluginCase c{
        .name = "wrong-topology", .pod = podWithClaimName(), .claims = {allocatedClaimWithWrongTopology()}};
    c.want.filter[kNodeName].status = unresolvable("resourceclaim not available on the node");
    c.want.postfilter.changes = [](api::ResourceClaim cl) {
      return fromClaim(cl).allocation(std::nullopt).obj();
    };
    c.want.postfilter.status = unschedulable("deallocation of ResourceClaim completed");
    cases.push_back(c);
  }
  {
    PluginCase c{
        .name = "good-topology", .pod = podWithClaimName(), .claims = {allocatedClaimWithGoodTopology()}};
    c.want.prebind.changes = addReservation();
    cases.push_back(c);
  }
  {
    PluginCase c{
        .name = "bind-failure", .pod = podWithClaimName(), .claims = {allocatedClaimWithGoodTopology()}};
    c.want.prebind.changes = addReservation();
    Expect after;
    after.changes = [](api::ResourceClaim cl) {
      cl.status.reservedFor.clear();
      return cl;
    };
    c.want.unreserveAfterBindFailure = after;
    cases.push_back(c);
  }
  cases.push_back(PluginCase{.name = "reserved-okay", .pod = podWithClaimName(), .claims = {inUseClaim()}});
  {
    PluginCase c{
        .name = "DRA-disabled", .pod = podWithClaimName(), .claims = {inUseClaim()}, .disableDRA = true};
    c.want.prefilter.status = Status(Code::Skip);
    c.want.postfilter.status = Status(Code::Unschedulable);
    c.want.prebindPreFlight = Status(Code::Skip);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "claim-with-request-with-unknown-device-class",
                 .pod = podWithClaimName(),
                 .claims = {updateDeviceClassName(claim(), "does-not-exist")}};
    c.want.prefilter.status = unschedulable("request req-1: device class does-not-exist does not exist");
    c.want.postfilter.status = Status(Code::Unschedulable);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "claim-with-prioritized-list-feature-disabled",
                 .pod = podWithClaimName(),
                 .claims = {claimWithPrioritizedList()},
                 .classes = {deviceClass()}};
    c.want.prefilter.status = unresolvable(
        "claim default/my-pod-my-resource, request req-1: has subrequests, but the DRAPrioritizedList "
        "feature is "
        "disabled");
    c.want.postfilter.status = Status(Code::Unschedulable);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "claim-with-prioritized-list-unknown-device-class",
                 .pod = podWithClaimName(),
                 .claims = {updateDeviceClassName(claimWithPrioritizedList(), "does-not-exist")},
                 .enableDRAPrioritizedList = true};
    c.want.prefilter.status =
        unschedulable("request req-1/subreq-1: device class does-not-exist does not exist");
    c.want.postfilter.status = Status(Code::Unschedulable);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "claim-with-prioritized-list",
                 .pod = podWithClaimName(),
                 .claims = {pendingClaimWithPrioritizedList()},
                 .classes = {deviceClass()},
                 .slices = {workerNodeSlice()},
                 .enableDRAPrioritizedList = true};
    c.want.reserve.inFlightClaim = allocatedClaimWithPrioritizedList();
    c.want.prebind.assumedClaim = reserve(allocatedClaimWithPrioritizedList(), podWithClaimName());
    c.want.prebind.changes =
        allocatedAndReserved(allocatedClaimWithPrioritizedList(), inUseClaimWithPrioritizedList());
    cases.push_back(c);
  }
  addExtendedResourceCases(cases);
  {
    PluginCase c{.name = "canceled",
                 .pod = podWithClaimName(),
                 .claims = {largeClaim()},
                 .classes = {deviceClass()},
                 .slices = {largeWorkerNodeSlice()},
                 .cancelFilter = true,
                 .filterTimeout = std::chrono::nanoseconds(1)};
    c.want.filter[kNodeName].status =
        unresolvable("asked by caller to stop allocating devices: context canceled");
    c.want.postfilter.status = Status(Code::Unschedulable);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "timeout",
                 .pod = podWithClaimName(),
                 .claims = {largeClaim()},
                 .classes = {deviceClass()},
                 .slices = {largeWorkerNodeSlice()},
                 .filterTimeout = std::chrono::nanoseconds(1)};
    c.want.filter[kNodeName].status = unresolvable("timed out trying to allocate devices");
    c.want.postfilter.status = Status(Code::Unschedulable);
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "timeout_disabled",
                 .args = config::DynamicResourcesArgs{},
                 .pod = podWithClaimName(),
                 .claims = {pendingClaim()},
                 .classes = {deviceClass()},
                 .slices = {workerNodeSlice()},
                 .disableDRASchedulerFilterTimeout = true};
    c.want = allocates(allocatedClaim(), inUseClaim());
    cases.push_back(c);
  }
  {
    config::DynamicResourcesArgs zero;
    zero.filterTimeout = std::chrono::milliseconds(0);
    PluginCase c{.name = "timeout_zero",
                 .args = zero,
                 .pod = podWithClaimName(),
                 .claims = {pendingClaim()},
                 .classes = {deviceClass()},
                 .slices = {workerNodeSlice()}};
    c.want = allocates(allocatedClaim(), inUseClaim());
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "bound-claim-with-succeeded-binding-conditions",
                 .pod = podWithClaimName(),
                 .claims = {boundClaim()},
                 .enableDRADeviceBindingConditions = true,
                 .enableDRAResourceClaimDeviceStatus = true};
    c.want.prebind.changes = addReservation();
    c.metrics = oneBindingConditionsOutcome("success");
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "bound-claim-with-failed-binding",
                 .pod = podWithClaimName(),
                 .claims = {failedBindingClaim()},
                 .slices = {workerNodeSlice()},
                 .enableDRADeviceBindingConditions = true,
                 .enableDRAResourceClaimDeviceStatus = true};
    c.want.filter[kNodeName].status = unresolvable("resourceclaim not available on the node");
    c.want.postfilter.changes = deallocate();
    c.want.postfilter.status = unschedulable("deallocation of ResourceClaim completed");
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "bound-claim-with-timed-out-binding",
                 .pod = podWithClaimName(),
                 .claims = {withTimestampedBindingConditions(std::chrono::minutes(10), {})},
                 .enableDRADeviceBindingConditions = true,
                 .enableDRAResourceClaimDeviceStatus = true};
    c.want.filter[kNodeName].status = unresolvable("resourceclaim not available on the node");
    c.want.postfilter.changes = deallocate();
    c.want.postfilter.status = unschedulable("deallocation of ResourceClaim completed");
    cases.push_back(c);
  }
  {
    PluginCase c{
        .name = "prebind-fail-with-binding-timeout",
        .pod = podWithClaimName(),
        .claims = {withTimestampedBindingConditions(std::chrono::minutes(9) + std::chrono::seconds(50), {})},
        .enableDRADeviceBindingConditions = true,
        .enableDRAResourceClaimDeviceStatus = true};
    c.want.prebind.changes = addReservation();
    c.want.prebind.status = Status::error("device binding timeout: claim=" + kClaimName);
    c.metrics = oneBindingConditionsOutcome("timeout");
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "bound-claim-with-mixed-binding-conditions",
                 .pod = podWithClaimName(),
                 .claims = {withTimestampedBindingConditions(
                     std::chrono::minutes(10), {{"condition1", "True"}, {"condition2", "False"}})},
                 .enableDRADeviceBindingConditions = true,
                 .enableDRAResourceClaimDeviceStatus = true};
    c.want.filter[kNodeName].status = unresolvable("resourceclaim not available on the node");
    c.want.postfilter.changes = deallocate();
    c.want.postfilter.status = unschedulable("deallocation of ResourceClaim completed");
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "bound-claim-without-binding-conditions",
                 .pod = podWithClaimTemplateInStatus(),
                 .claims = {allocatedClaim(), otherClaim()},
                 .enableDRADeviceBindingConditions = true,
                 .enableDRAResourceClaimDeviceStatus = true};
    c.want.prebind.changes =
        forClaim([](api::ResourceClaim& cl) { cl.status.reservedFor = inUseClaim().status.reservedFor; });
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "multi-claims-binding-conditions-all-success",
                 .nodes = {makeNode(kNodeName)},
                 .pod = podWithTwoClaimNames(),
                 .claims = {boundClaim(), boundClaim2()},
                 .classes = {deviceClass()},
                 .slices = {fabricSlice(kDriver, "instance-1"), fabricSlice(kDriver2, "instance-2")},
                 .enableDRADeviceBindingConditions = true,
                 .enableDRAResourceClaimDeviceStatus = true};
    c.want.prebind.changes = addReservation();
    cases.push_back(c);
  }
  {
    PluginCase c{.name = "multi-claims-binding-conditions-one-fail",
                 .nodes = {makeNode(kNodeName)},
                 .pod = podWithTwoClaimNames(),
                 .claims = {boundClaim(), failedBindingClaim2()},
                 .classes = {deviceClass()},
                 .slices = {fabricSlice(kDriver, "instance-1"), fabricSlice(kDriver2, "instance-2")},
                 .enableDRADeviceBindingConditions = true,
                 .enableDRAResourceClaimDeviceStatus = true};
    c.want.filter[kNodeName].status = unresolvable("resourceclaim not available on the node");
    c.want.postfilter.changes = [](api::ResourceClaim cl) {
      if (cl.metadata.name == kClaimName2)
        return fromClaim(cl).allocation(std::nullopt).allocatedDeviceStatuses({}).obj();
      return cl;
    };
    c.want.postfilter.status = unschedulable("deallocation of ResourceClaim completed");
    cases.push_back(c);
  }
  return cases;
}

// ---- The driver ----

// Without the fields the API server assigns, and allocationTimestamp (as upstream's comparison).
api::ResourceClaim normalized(api::ResourceClaim c) {
  // A generated name's random suffix reads as upstream's fake "-0".
  if (!c.metadata.generateName.empty() && c.metadata.name.starts_with(c.metadata.generateName)) {
    c.metadata.name = c.metadata.generateName + "0";
  }
  c.metadata.uid.clear();
  c.metadata.resourceVersion.clear();
  c.metadata.creationTimestamp.reset();
  c.metadata.generation = 0;
  if (c.status.allocation) c.status.allocation->allocationTimestamp.reset();
  return c;
}

std::string dump(const std::vector<api::ResourceClaim>& claims) {
  std::string out;
  for (const auto& c : claims) out += "  " + api::encodeJson(c) + "\n";
  return out.empty() ? "  (none)\n" : out;
}

class TestEnv {
 public:
  TestEnv() {
    handle_.setClient(&client_);
    handle_.setSharedInformerFactory(&factory_);
    handle_.setClock(&clock_);
    handle_.setMetrics(&metrics_);
    handle_.setProfileName("default-scheduler");
  }
  ~TestEnv() { factory_.stop(); }
  TestEnv(const TestEnv&) = delete;
  TestEnv& operator=(const TestEnv&) = delete;

  DynamicResources& create(const config::DynamicResourcesArgs* args, DynamicResources::Features features) {
    auto p = DynamicResources::create(args, handle_, features);
    EXPECT_TRUE(p.ok()) << p.error().message();
    plugin_ = std::move(p).value();
    return dynamic_cast<DynamicResources&>(*plugin_);
  }
  DynamicResources& plugin() { return dynamic_cast<DynamicResources&>(*plugin_); }
  DefaultDRAManager* manager() { return dynamic_cast<DefaultDRAManager*>(plugin().draManager()); }

  template <class T>
  void add(const T& obj) {
    auto r = client_.create(obj);
    ASSERT_TRUE(r.ok()) << r.error().message();
  }
  // Runs fn on another thread, stepping the clock while fn waits on it (PreBind's polls), until fn returns.
  template <class Fn>
  auto whileStepping(Fn fn) {
    auto result = std::async(std::launch::async, std::move(fn));
    while (result.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) {
      if (clock_.pendingTimers() > 0) clock_.step(std::chrono::seconds(1));
    }
    return result.get();
  }
  void start() {
    factory_.start();
    ASSERT_TRUE(factory_.waitForCacheSync(std::chrono::seconds(30)));
  }

  std::vector<api::ResourceClaim> listAll() {
    std::vector<api::ResourceClaim> out;
    for (const auto& c : client_.objects<api::ResourceClaim>()) out.push_back(*c);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      return std::tie(a.metadata.namespace_, a.metadata.name) <
             std::tie(b.metadata.namespace_, b.metadata.name);
    });
    return out;
  }

  // Applies `change` to the stored claims and writes the changed ones (prepare steps).
  std::vector<api::ResourceClaim> updateAPIServer(const std::vector<api::ResourceClaim>& objects,
                                                  const ClaimChange& change) {
    std::vector<api::ResourceClaim> out = objects;
    if (!change) return out;
    for (auto& obj : out) {
      api::ResourceClaim modified = change(obj);
      if (modified == obj) continue;
      auto r = client_.updateResourceClaim(modified);
      EXPECT_TRUE(r.ok()) << "prepare update: " << r.error().message();
      if (r.ok()) obj = *r;
    }
    // The informer (and so the assume cache) sees the change before the step runs, as upstream's
    // tests observe it in practice.
    waitForInformer();
    return out;
  }

  // Claims whose latest version differs from the informer's (assumed), and the others.
  std::pair<std::vector<api::ResourceClaim>, std::vector<api::ResourceClaim>> listAssumedClaims() {
    std::vector<api::ResourceClaim> assumed, same;
    auto& cache = manager()->claimsCache();
    for (const auto& c : cache.list()) {
      const std::string key = c->metadata.namespace_ + "/" + c->metadata.name;
      auto latest = cache.get(key);
      auto apiObj = cache.getAPIObj(key);
      if (latest.ok() && apiObj.ok() && latest->get() != apiObj->get()) {
        assumed.push_back(*c);
      } else {
        same.push_back(*c);
      }
    }
    return {assumed, same};
  }

  // The extended-resource cache has seen the classes.
  void waitForClasses(const std::vector<api::DeviceClass>& classes) {
    const framework::DeviceClassResolver* r = manager()->deviceClassResolver();
    ASSERT_NE(r, nullptr);
    for (const auto& c : classes) {
      const std::string implicit = std::string(framework::kResourceDeviceClassPrefix) + c.metadata.name;
      for (int i = 0; i < 3000 && r->getDeviceClass(implicit) == nullptr; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
  }

  void waitForInformer() {
    const std::string rv = client_.currentResourceVersion();
    for (int i = 0; i < 3000; ++i) {
      bool done = true;
      for (const auto& c : client_.objects<api::ResourceClaim>()) {
        auto cached = manager()->claimsCache().getAPIObj(c->metadata.namespace_ + "/" + c->metadata.name);
        if (!cached.ok() || (*cached)->metadata.resourceVersion != c->metadata.resourceVersion) done = false;
      }
      if (done) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

  void verify(const std::string& step, const Expect& expected, const std::vector<api::ResourceClaim>& initial,
              const Status& status) {
    SCOPED_TRACE(step);
    if (!expected.status) {
      EXPECT_TRUE(status.isSuccess()) << status.toString();
    } else if (auto actualErr = status.asError()) {
      // As upstream: only the error strings are compared.
      const std::string want = expected.status->asError() ? expected.status->asError()->message() : "";
      EXPECT_NE(actualErr->message().find(want), std::string::npos)
          << "got " << status.toString() << ", want a message containing \"" << want << "\"";
    } else {
      EXPECT_EQ(status, *expected.status);
    }

    std::vector<api::ResourceClaim> want;
    for (const auto& c : initial) {
      api::ResourceClaim n = normalized(expected.changes ? expected.changes(c) : c);
      if (std::find(expected.removed.begin(), expected.removed.end(), n.metadata.name) ==
          expected.removed.end()) {
        want.push_back(std::move(n));
      }
    }
    for (const auto& c : expected.added) want.push_back(normalized(c));
    std::vector<api::ResourceClaim> got;
    for (const auto& c : listAll()) got.push_back(normalized(c));
    const auto byName = [](const api::ResourceClaim& a, const api::ResourceClaim& b) {
      return std::tie(a.metadata.namespace_, a.metadata.name) <
             std::tie(b.metadata.namespace_, b.metadata.name);
    };
    std::sort(want.begin(), want.end(), byName);
    std::sort(got.begin(), got.end(), byName);
    EXPECT_EQ(got, want) << "stored claims differ; got:\n" << dump(got) << "want:\n" << dump(want);

    auto [assumed, same] = listAssumedClaims();
    if (!expected.assumedClaim && !assumed.empty()) {
      // A deleted or updated claim: wait for the informer to catch up.
      for (int i = 0; i < 300 && !assumed.empty(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        std::tie(assumed, same) = listAssumedClaims();
      }
      EXPECT_TRUE(assumed.empty()) << "assumed claims:\n" << dump(assumed);
    }
    if (expected.assumedClaim) {
      const api::ResourceClaim wantAssumed = normalized(*expected.assumedClaim);
      bool seen = false;
      for (const auto& c : assumed) seen = seen || normalized(c) == wantAssumed;
      for (const auto& c : same) seen = seen || normalized(c) == wantAssumed;
      EXPECT_TRUE(seen) << "assumed claim not found: " << api::encodeJson(wantAssumed) << "\nassumed:\n"
                        << dump(assumed) << "others:\n"
                        << dump(same);
    }

    std::vector<api::ResourceClaim> inFlight;
    for (const auto& c : manager()->inFlightClaimsForTest()) inFlight.push_back(normalized(*c));
    std::vector<api::ResourceClaim> wantInFlight;
    if (expected.inFlightClaim) wantInFlight.push_back(normalized(*expected.inFlightClaim));
    EXPECT_EQ(inFlight, wantInFlight) << "in-flight claims; got:\n"
                                      << dump(inFlight) << "want:\n"
                                      << dump(wantInFlight);
  }

  plugintesting::FakeHandle& handle() { return handle_; }
  client::MemoryClient& api() { return client_; }
  const metrics::Metrics& metrics() const { return metrics_; }

 private:
  metrics::Metrics metrics_;
  ManualClock clock_{kStart + std::chrono::milliseconds(1)};
  client::MemoryClient client_;
  informer::SharedInformerFactory factory_{client_};
  plugintesting::FakeHandle handle_;
  std::unique_ptr<framework::Plugin> plugin_;
};

DynamicResources::Features featuresOf(const PluginCase& tc) {
  DynamicResources::Features f;
  f.enableDRAAdminAccess = tc.enableDRAAdminAccess;
  f.enableDRADeviceBindingConditions = tc.enableDRADeviceBindingConditions;
  f.enableDRAResourceClaimDeviceStatus = tc.enableDRAResourceClaimDeviceStatus;
  f.enableDRADeviceTaints = tc.enableDRADeviceTaints;
  f.enableDRASchedulerFilterTimeout = !tc.disableDRASchedulerFilterTimeout;
  f.enableDynamicResourceAllocation = !tc.disableDRA;
  f.enableDRAPrioritizedList = tc.enableDRAPrioritizedList;
  f.enableDRAExtendedResource = tc.enableDRAExtendedResource;
  return f;
}

class PluginTest : public ::testing::TestWithParam<PluginCase> {};

TEST_P(PluginTest, Run) {
  const PluginCase& tc = GetParam();
  if (!tc.skip.empty()) GTEST_SKIP() << tc.skip;
  std::vector<api::Node> nodes = tc.nodes.empty() ? std::vector<api::Node>{makeNode(kNodeName)} : tc.nodes;

  TestEnv env;
  const auto features = featuresOf(tc);
  config::DynamicResourcesArgs defaults;
  if (features.enableDRASchedulerFilterTimeout) defaults.filterTimeout = std::chrono::seconds(10);
  const config::DynamicResourcesArgs& args = tc.args ? *tc.args : defaults;
  // Without the gate the plugin is created without touching the DRA objects.
  if (tc.disableDRA) {
    env.create(&args, features);
  }
  for (const auto& s : tc.slices) env.add(s);
  for (const auto& c : tc.claims) env.add(c);
  for (const auto& c : tc.classes) env.add(c);
  if (tc.podInAPI) env.add(tc.pod);
  if (!tc.failClaimCreate.empty()) {
    env.api().injectFailures(client::Operation::CreateResourceClaim, 1,
                             client::ApiError(400, "BadRequest", tc.failClaimCreate));
  }
  if (!tc.failPodStatusPatch.empty()) {
    env.api().injectFailures(client::Operation::PatchPodStatus, 1,
                             client::ApiError(500, "InternalError", tc.failPodStatusPatch));
  }
  DynamicResources* pl = nullptr;
  if (!tc.disableDRA)
    pl = &env.create(&args, features);
  else
    pl = &env.plugin();
  if (tc.filterTimeout) pl->setFilterTimeoutForTest(*tc.filterTimeout);
  env.start();
  if (!tc.disableDRA) env.waitForInformer();
  if (tc.enableDRAExtendedResource) env.waitForClasses(tc.classes);

  auto podInfo = plugintesting::podInfo(tc.pod);
  framework::CycleState state;
  // Checks not involving the manager when the plugin is disabled.
  auto verify = [&](const std::string& step, const Expect& e, const std::vector<api::ResourceClaim>& initial,
                    const Status& s) {
    if (tc.disableDRA) {
      SCOPED_TRACE(step);
      if (!e.status) {
        EXPECT_TRUE(s.isSuccess()) << s.toString();
      } else if (auto err = s.asError()) {
        const std::string want = e.status->asError() ? e.status->asError()->message() : "";
        EXPECT_NE(err->message().find(want), std::string::npos) << s.toString();
      } else {
        EXPECT_EQ(s, *e.status);
      }
      return;
    }
    env.verify(step, e, initial, s);
  };

  auto initial = env.listAll();
  Status status = pl->preEnqueue(*podInfo);
  verify("PreEnqueue", tc.want.preenqueue, initial, status);
  if (!status.isSuccess()) return;

  std::vector<framework::NodeInfoPtr> nodeInfos;
  for (const auto& n : nodes) nodeInfos.push_back(plugintesting::nodeInfoWith(n));
  framework::PreFilterResult pfResult;
  status = pl->preFilter(state, *podInfo, nodeInfos, pfResult);
  EXPECT_TRUE(pfResult.allNodes());
  verify("prefilter", tc.want.prefilter, initial, status);
  bool unschedulableState = status.isRejected();

  std::vector<framework::NodeInfoPtr> potentialNodes;
  initial = env.listAll();
  env.updateAPIServer(initial, tc.prepare.filter);
  if (!unschedulableState) {
    for (const auto& nodeInfo : nodeInfos) {
      initial = env.listAll();
      if (tc.cancelFilter) env.handle().requestStop();
      status = pl->filter(state, *podInfo, *nodeInfo);
      const std::string nodeName = nodeInfo->node()->metadata.name;
      auto it = tc.want.filter.find(nodeName);
      verify("filter/" + nodeName, it == tc.want.filter.end() ? Expect{} : it->second, initial, status);
      if (status.code() == Code::Success) potentialNodes.push_back(nodeInfo);
      if (status.code() == Code::Error) return;  // an error aborts scheduling
    }
    if (potentialNodes.empty()) unschedulableState = true;
  }

  if (!unschedulableState && potentialNodes.size() > 1) {
    initial = env.listAll();
    env.updateAPIServer(initial, tc.prepare.prescore);
  }

  framework::NodeInfoPtr selectedNode;
  if (!unschedulableState && !potentialNodes.empty()) {
    selectedNode = potentialNodes[0];
    initial = env.listAll();
    initial = env.updateAPIServer(initial, tc.prepare.reserve);
    status = pl->reserve(state, *podInfo, selectedNode->node()->metadata.name);
    verify("reserve", tc.want.reserve, initial, status);
    if (!status.isSuccess()) unschedulableState = true;
  }

  if (selectedNode) {
    const std::string nodeName = selectedNode->node()->metadata.name;
    if (unschedulableState) {
      initial = env.listAll();
      initial = env.updateAPIServer(initial, tc.prepare.unreserve);
      pl->unreserve(state, *podInfo, nodeName);
      verify("unreserve", tc.want.unreserve, initial, status);
    } else {
      if (tc.want.unreserveBeforePreBind) {
        initial = env.listAll();
        pl->unreserve(state, *podInfo, nodeName);
        verify("unreserveBeforePreBind", *tc.want.unreserveBeforePreBind, initial, status);
        return;
      }
      initial = env.listAll();
      initial = env.updateAPIServer(initial, tc.prepare.prebind);
      framework::PreBindPreFlightResult preFlightResult;
      Status preFlight = pl->preBindPreFlight(state, *podInfo, nodeName, preFlightResult);
      EXPECT_EQ(preFlight, tc.want.prebindPreFlight.value_or(Status())) << "prebindPreFlight";
      EXPECT_TRUE(preFlightResult.allowParallel);
      Status preBindStatus = env.whileStepping([&] { return pl->preBind(state, *podInfo, nodeName, {}); });
      verify("prebind", tc.want.prebind, initial, preBindStatus);
      if (tc.metrics) tc.metrics(env.metrics().scrape());
      // The pod's status names the claim PreBind created and maps the container's request to it.
      if (preBindStatus.isSuccess() && !tc.want.prebind.added.empty()) {
        bool found = false;
        for (const auto& p : env.api().objects<api::Pod>()) {
          if (p->metadata.name != tc.pod.metadata.name || !p->status.extendedResourceClaimStatus) continue;
          found = true;
          const auto& ers = *p->status.extendedResourceClaimStatus;
          EXPECT_TRUE(ers.resourceClaimName.starts_with(kPodName + "-extended-resources-"))
              << ers.resourceClaimName;
          EXPECT_FALSE(ers.requestMappings.empty());
        }
        EXPECT_TRUE(found) << "pod status has no extendedResourceClaimStatus";
      }
      if (tc.want.unreserveAfterBindFailure) {
        initial = env.listAll();
        pl->unreserve(state, *podInfo, nodeName);
        verify("unreserveAfterBindFailure", *tc.want.unreserveAfterBindFailure, initial, status);
      } else if (status.isSuccess()) {
        initial = env.listAll();
        env.updateAPIServer(initial, tc.prepare.postbind);
      }
    }
  } else if (potentialNodes.empty()) {
    initial = env.listAll();
    initial = env.updateAPIServer(initial, tc.prepare.postfilter);
    framework::PostFilterResult result;
    framework::NodeToStatus statuses;
    status = pl->postFilter(state, *podInfo, statuses, result);
    EXPECT_EQ(result, framework::PostFilterResult{});
    verify("postfilter", tc.want.postfilter, initial, status);
  }
}

INSTANTIATE_TEST_SUITE_P(Plugin, PluginTest, ::testing::ValuesIn(pluginCases()),
                         [](const ::testing::TestParamInfo<PluginCase>& param) {
                           std::string n = param.param.name;
                           for (char& ch : n) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return n;
                         });

// ---- Queueing hints ----

EventObject claimObj(const api::ResourceClaim& c) {
  return EventObject(std::make_shared<const api::ResourceClaim>(c));
}
EventObject podObj(const api::Pod& p) {
  return EventObject(api::PodPtr(std::make_shared<const api::Pod>(p)));
}

struct ClaimHintCase {
  std::string name;
  api::Pod pod;
  std::vector<api::ResourceClaim> claims;
  std::optional<api::ResourceClaim> oldClaim;
  std::optional<api::ResourceClaim> newClaim;
  bool oldIsOtherKind = false;
  bool newIsOtherKind = false;
  QueueingHint wantHint = QueueingHint::QueueSkip;
  bool wantErr = false;
};

TEST(IsSchedulableAfterClaimChange, Table) {
  api::ResourceClaim wrongOwner = allocatedClaim();
  wrongOwner.metadata.ownerReferences[0].uid += "123";
  api::ResourceClaim unrelated = allocatedClaim();
  unrelated.metadata.name += "-foo";
  api::ResourceClaim withFinalizer = pendingClaim();
  withFinalizer.metadata.finalizers.push_back("foo");
  api::ResourceClaim statusChanged = pendingClaim();
  statusChanged.status.allocation = api::AllocationResult{};
  api::ResourceClaim deallocated = otherAllocatedClaim();
  deallocated.status.allocation.reset();

  std::vector<ClaimHintCase> cases = {
      // v1.37: deletes are registered (the extended-resource claim PostFilter deletes).
      {.name = "skip-deletes",
       .pod = podWithClaimTemplate(),
       .oldClaim = pendingClaim(),
       .wantHint = QueueingHint::QueueSkip},
      {.name = "queue-on-delete-with-allocation",
       .pod = podWithClaimTemplate(),
       .oldClaim = allocatedClaim(),
       .wantHint = QueueingHint::Queue},
      {.name = "backoff-wrong-new-object",
       .pod = podWithClaimTemplate(),
       .newIsOtherKind = true,
       .wantErr = true},
      {.name = "skip-wrong-claim",
       .pod = podWithClaimTemplate(),
       .newClaim = wrongOwner,
       .wantHint = QueueingHint::QueueSkip},
      {.name = "skip-unrelated-claim",
       .pod = podWithClaimTemplate(),
       .claims = {allocatedClaim()},
       .newClaim = unrelated,
       .wantHint = QueueingHint::QueueSkip},
      {.name = "queue-on-add",
       .pod = podWithClaimName(),
       .newClaim = pendingClaim(),
       .wantHint = QueueingHint::Queue},
      {.name = "backoff-wrong-old-object",
       .pod = podWithClaimName(),
       .claims = {pendingClaim()},
       .newClaim = pendingClaim(),
       .oldIsOtherKind = true,
       .wantErr = true},
      {.name = "skip-adding-finalizer",
       .pod = podWithClaimName(),
       .claims = {pendingClaim()},
       .oldClaim = pendingClaim(),
       .newClaim = withFinalizer,
       .wantHint = QueueingHint::QueueSkip},
      {.name = "queue-on-status-change",
       .pod = podWithClaimName(),
       .claims = {pendingClaim()},
       .oldClaim = pendingClaim(),
       .newClaim = statusChanged,
       .wantHint = QueueingHint::Queue},
      {.name = "claim-deallocate",
       .pod = podWithClaimName(),
       .claims = {pendingClaim(), otherAllocatedClaim()},
       .oldClaim = otherAllocatedClaim(),
       .newClaim = deallocated,
       .wantHint = QueueingHint::Queue},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    TestEnv env;
    for (const auto& c : tc.claims) env.add(c);
    auto& pl = env.create(nullptr, DynamicResources::Features{});
    env.start();
    env.waitForInformer();

    EventObject oldObj = tc.oldIsOtherKind ? podObj(tc.pod) : EventObject{};
    EventObject newObj = tc.newIsOtherKind ? podObj(tc.pod) : EventObject{};
    if (tc.oldClaim && !tc.newClaim) oldObj = claimObj(*tc.oldClaim);
    if (tc.newClaim) {
      // Create or update through the API and wait for the assume cache, so the object carries its real
      // uid and resourceVersion.
      const std::string key = tc.newClaim->metadata.namespace_ + "/" + tc.newClaim->metadata.name;
      api::ResourceClaim stored;
      if (!tc.oldClaim && !tc.oldIsOtherKind) {
        api::ResourceClaim create = *tc.newClaim;
        create.metadata.uid.clear();
        auto r = env.api().create(create);
        ASSERT_TRUE(r.ok()) << r.error().message();
        stored = *r;
      } else {
        auto cached = env.manager()->claimsCache().get(key);
        ASSERT_TRUE(cached.ok()) << cached.error().message();
        oldObj = claimObj(**cached);
        api::ResourceClaim update = *tc.newClaim;
        update.metadata.uid = (*cached)->metadata.uid;
        update.metadata.resourceVersion = (*cached)->metadata.resourceVersion;
        auto r = update.status == (*cached)->status ? env.api().updateResourceClaim(update)
                                                    : env.api().updateResourceClaimStatus(update);
        ASSERT_TRUE(r.ok()) << r.error().message();
        stored = *r;
      }
      env.waitForInformer();
      newObj = claimObj(stored);
      if (tc.oldIsOtherKind) oldObj = podObj(tc.pod);
    }
    auto hint = pl.isSchedulableAfterClaimChange(tc.pod, oldObj, newObj);
    if (tc.wantErr) {
      EXPECT_FALSE(hint.ok());
      continue;
    }
    ASSERT_TRUE(hint.ok()) << hint.error().message();
    EXPECT_EQ(*hint, tc.wantHint);
  }
}

TEST(IsSchedulableAfterTargetPodUpdate, Table) {
  struct Case {
    std::string name;
    std::vector<api::ResourceClaim> objs;
    api::Pod pod;
    std::optional<api::Pod> obj;
    QueueingHint wantHint = QueueingHint::QueueSkip;
    bool wantErr = false;
  };
  api::Pod incomplete = podWithTwoClaimTemplates();
  incomplete.status.resourceClaimStatuses = {
      api::PodResourceClaimStatus{incomplete.spec.resourceClaims[0].name, kClaimName}};
  std::vector<Case> cases = {
      {.name = "backoff-wrong-new-object", .pod = podWithClaimTemplate(), .wantErr = true},
      {.name = "complete",
       .objs = {pendingClaim()},
       .pod = podWithClaimTemplate(),
       .obj = podWithClaimTemplateInStatus(),
       .wantHint = QueueingHint::Queue},
      {.name = "missing-claim",
       .pod = podWithClaimTemplate(),
       .obj = podWithClaimTemplateInStatus(),
       .wantHint = QueueingHint::QueueSkip},
      {.name = "incomplete",
       .objs = {pendingClaim()},
       .pod = podWithTwoClaimTemplates(),
       .obj = incomplete,
       .wantHint = QueueingHint::QueueSkip},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    TestEnv env;
    for (const auto& c : tc.objs) env.add(c);
    auto& pl = env.create(nullptr, DynamicResources::Features{});
    env.start();
    env.waitForInformer();
    // "not-a-claim": an object of another kind.
    EventObject newObj = tc.obj ? podObj(*tc.obj) : claimObj(pendingClaim());
    auto hint = pl.isSchedulableAfterTargetPodUpdate(tc.pod, EventObject{}, newObj);
    if (tc.wantErr) {
      EXPECT_FALSE(hint.ok());
      continue;
    }
    ASSERT_TRUE(hint.ok()) << hint.error().message();
    EXPECT_EQ(*hint, tc.wantHint);
  }
}

// ---- Added here ----

TEST(DynamicResources, EventsToRegister) {
  TestEnv env;
  auto& pl = env.create(nullptr, DynamicResources::Features{});
  auto events = pl.eventsToRegister();
  ASSERT_TRUE(events.ok());
  using namespace framework::action;
  std::vector<std::pair<framework::EventResource, framework::ActionType>> got;
  for (const auto& e : *events) got.emplace_back(e.event.resource, e.event.actionType);
  std::vector<std::pair<framework::EventResource, framework::ActionType>> want = {
      {framework::EventResource::Node, Add | UpdateNodeLabel | UpdateNodeAllocatable},
      {framework::EventResource::ResourceClaim, Add | Update | Delete},
      {framework::EventResource::TargetPod, UpdatePodGeneratedResourceClaim},
      {framework::EventResource::DeviceClass, Add | Update},
      {framework::EventResource::ResourceSlice, Add | Update},
  };
  EXPECT_EQ(got, want);
}

TEST(DynamicResources, CreateNeedsInformersOrManager) {
  plugintesting::FakeHandle handle;
  client::MemoryClient client;
  handle.setClient(&client);
  auto p = DynamicResources::create(nullptr, handle, DynamicResources::Features{});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message(), "SharedInformerFactory is nil");
  DynamicResources::Features off;
  off.enableDynamicResourceAllocation = false;
  EXPECT_TRUE(DynamicResources::create(nullptr, handle, off).ok());
}

// Reserve makes the devices of one pod's allocation unavailable to the next pod's PreFilter, until
// Unreserve releases them.
TEST(DynamicResources, InFlightAllocationBlocksDevice) {
  TestEnv env;
  env.add(workerNodeSlice());
  env.add(deviceClass());
  env.add(pendingClaim());
  api::ResourceClaim other = makeClaim().name("other").namespace_(kNamespace).request(kClassName).obj();
  env.add(other);
  auto& pl = env.create(nullptr, DynamicResources::Features{});
  env.start();
  env.waitForInformer();
  auto node = plugintesting::nodeInfoWith(makeNode(kNodeName));
  std::vector<framework::NodeInfoPtr> nodes = {node};

  auto pod1 = plugintesting::podInfo(podWithClaimName());
  framework::CycleState s1;
  framework::PreFilterResult r;
  ASSERT_TRUE(pl.preFilter(s1, *pod1, nodes, r).isSuccess());
  ASSERT_TRUE(pl.filter(s1, *pod1, *node).isSuccess());
  ASSERT_TRUE(pl.reserve(s1, *pod1, kNodeName).isSuccess());

  api::Pod p2 = makePod({byName("r", "other")});
  p2.metadata.name = "pod-2";
  p2.metadata.uid = "5678";
  auto pod2 = plugintesting::podInfo(p2);
  framework::CycleState s2;
  ASSERT_TRUE(pl.preFilter(s2, *pod2, nodes, r).isSuccess());
  EXPECT_EQ(pl.filter(s2, *pod2, *node), unresolvable("cannot allocate all claims"));

  pl.unreserve(s1, *pod1, kNodeName);
  framework::CycleState s3;
  ASSERT_TRUE(pl.preFilter(s3, *pod2, nodes, r).isSuccess());
  EXPECT_TRUE(pl.filter(s3, *pod2, *node).isSuccess());
}

// ---- Score (v1.37 Test_computesScore, TestNormalizeScore, the TestPlugin "*-prioritized-list-scoring"
// cases) ----

std::vector<std::pair<std::string, int64_t>> subreqs(int n, int64_t count = 1) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (int i = 1; i <= n; ++i) out.emplace_back("subreq-" + std::to_string(i), count);
  return out;
}

api::AllocationResult requestsAllocated(const std::vector<std::string>& requests) {
  api::AllocationResult a;
  for (const auto& r : requests) {
    api::DeviceRequestAllocationResult d;
    d.request = r;
    a.devices.results.push_back(d);
  }
  return a;
}

TEST(DynamicResources, ComputeScore) {
  struct Case {
    std::string name;
    std::vector<api::ResourceClaim> claims;
    std::vector<api::AllocationResult> allocations;
    int64_t expectedScore = 0;
    bool expectErr = false;
  };
  const std::vector<Case> cases = {
      {"more-claims-than-allocations",
       {makeClaim().namedRequestWithPrioritizedList("req-1", subreqs(1)).obj(),
        makeClaim().namedRequestWithPrioritizedList("req-2", subreqs(1)).obj()},
       {},
       0,
       true},
      {"mix-of-allocated-and-unallocated-claims",
       {allocatedClaim(), pendingClaim2()},
       {allocationResult2()},
       0},
      {"single-request-only-subrequest-allocated",
       {makeClaim().namedRequestWithPrioritizedList("req-1", subreqs(1)).obj()},
       {requestsAllocated({"req-1/subreq-1"})},
       8},
      {"single-request-last-subrequest-allocated",
       {makeClaim().namedRequestWithPrioritizedList("req-1", subreqs(8)).obj()},
       {requestsAllocated({"req-1/subreq-8"})},
       1},
      {"multiple-requests-with-middle-subrequests-allocated",
       {makeClaim()
            .namedRequestWithPrioritizedList("req-1", subreqs(4))
            .namedRequestWithPrioritizedList("req-2", subreqs(5))
            .obj()},
       {requestsAllocated({"req-1/subreq-4", "req-2/subreq-5"})},
       9},
      {"multiple-requests-with-top-subrequests-allocated",
       {makeClaim()
            .namedRequestWithPrioritizedList("req-1", subreqs(8))
            .namedRequestWithPrioritizedList("req-2", subreqs(1))
            .obj()},
       {requestsAllocated({"req-1/subreq-8", "req-2/subreq-1"})},
       9},
      {"multiple-claims-with-last-subrequests-allocated",
       {makeClaim().namedRequestWithPrioritizedList("req-1", subreqs(8)).obj(),
        makeClaim().namedRequestWithPrioritizedList("req-2", subreqs(8)).obj()},
       {requestsAllocated({"req-1/subreq-8"}), requestsAllocated({"req-2/subreq-8"})},
       2},
      {"multiple-claims-with-top-subrequests-allocated",
       {makeClaim().namedRequestWithPrioritizedList("req-1", subreqs(1)).obj(),
        makeClaim().namedRequestWithPrioritizedList("req-2", subreqs(1)).obj()},
       {requestsAllocated({"req-1/subreq-1"}), requestsAllocated({"req-2/subreq-1"})},
       16},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    std::vector<ClaimPtr> claims;
    for (const auto& c : tc.claims) claims.push_back(std::make_shared<const api::ResourceClaim>(c));
    auto score = computeScore(claims, tc.allocations);
    if (tc.expectErr) {
      EXPECT_FALSE(score.ok());
      continue;
    }
    ASSERT_TRUE(score.ok()) << score.error().message();
    EXPECT_EQ(*score, tc.expectedScore);
  }
}

TEST(DynamicResources, NormalizeScore) {
  using framework::NodeScoreList;
  constexpr int64_t kMax32 = 2147483647;
  struct Case {
    std::string name;
    NodeScoreList scores, expected;
  };
  const std::vector<Case> cases = {
      {"empty", {}, {}},
      {"single-score", {{"node-1", 42}}, {{"node-1", 100}}},
      {"all-same", {{"node-1", 8}, {"node-2", 8}}, {{"node-1", 100}, {"node-2", 100}}},
      {"all-same-very-large", {{"node-1", kMax32}, {"node-2", kMax32}}, {{"node-1", 100}, {"node-2", 100}}},
      {"max-and-min-values", {{"node-1", kMax32}, {"node-2", 0}}, {{"node-1", 100}, {"node-2", 0}}},
      {"mid-value",
       {{"node-1", 99}, {"node-2", 98}, {"node-3", 97}},
       {{"node-1", 100}, {"node-2", 98}, {"node-3", 97}}},
      {"large-spread-lost-precision",
       {{"node-1", kMax32}, {"node-2", kMax32 - 1}, {"node-3", 1}, {"node-4", 0}},
       {{"node-1", 100}, {"node-2", 99}, {"node-3", 0}, {"node-4", 0}}},
  };
  TestEnv env;
  auto& pl = env.create(nullptr, DynamicResources::Features{});
  auto pod = plugintesting::podInfo(podWithClaimName());
  framework::CycleState state;
  for (auto tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_TRUE(pl.normalizeScore(state, *pod, tc.scores).isSuccess());
    EXPECT_EQ(tc.scores, tc.expected);
  }
}

// The scoring part of TestPlugin's "*-prioritized-list-scoring" cases: PreFilter, Filter on every node,
// Score and NormalizeScore over the nodes that passed (Reserve and PreBind as in the other cases).
TEST(DynamicResources, PrioritizedListScoring) {
  const std::string selector = "device.attributes[\"" + kDriver + "\"]." + kAttrName;
  auto owned = [](ClaimWrapper w) {
    return w.namespace_(kNamespace).ownerReference(kPodName, kPodUID).obj();
  };
  auto slice = [](const std::string& node, int devices,
                  std::map<std::string, api::DeviceAttribute> attrs = {}) {
    auto s = makeSlice(node, kDriver);
    for (int i = 1; i <= devices; ++i) addDevice(s, "instance-" + std::to_string(i), attrs);
    return s;
  };
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::ResourceClaim> claims;
    std::vector<std::string> nodes;
    std::vector<api::ResourceSlice> slices;
    std::map<std::string, Status> filter;
    std::map<std::string, int64_t> scores;
    framework::NodeScoreList normalized;
  };
  const std::vector<Case> cases = {
      {"single-claim-prioritized-list-scoring",
       podWithClaimName(),
       {owned(makeClaim()
                  .name(kClaimName)
                  .namedRequestWithPrioritizedList("req-1", {{"subreq-1", 1}, {"subreq-2", 1}}, kClassName,
                                                   selector))},
       {kNodeName, kNode2Name},
       {slice(kNodeName, 1, {{kAttrName, boolAttr(true)}}),
        slice(kNode2Name, 1, {{kAttrName, boolAttr(false)}})},
       {},
       {{kNodeName, 8}, {kNode2Name, 7}},
       {{kNodeName, 100}, {kNode2Name, 87}}},
      {"multiple-claims-prioritized-list-scoring",
       podWithTwoClaimNames(),
       {owned(makeClaim().name(kClaimName).namedRequestWithPrioritizedList("req-1", subreqs(1))),
        owned(makeClaim()
                  .name(kClaimName2)
                  .namedRequestWithPrioritizedList(
                      "req-1", {{"subreq-1", 4}, {"subreq-2", 3}, {"subreq-3", 2}, {"subreq-4", 1}}))},
       {kNodeName, kNode2Name, kNode3Name},
       {slice(kNodeName, 4), slice(kNode2Name, 2), slice(kNode3Name, 1)},
       {{kNode3Name, unresolvable("cannot allocate all claims")}},
       {{kNodeName, 15}, {kNode2Name, 13}},
       {{kNodeName, 100}, {kNode2Name, 86}}},
      {"multiple-requests-prioritized-list-scoring",
       podWithClaimName(),
       {owned(makeClaim()
                  .name(kClaimName)
                  .namedRequestWithPrioritizedList("req-1", {{"subreq-1", 2}, {"subreq-2", 1}})
                  .namedRequestWithPrioritizedList("req-2", {{"subreq-1", 2}, {"subreq-2", 1}}))},
       {kNodeName, kNode2Name, kNode3Name},
       {slice(kNodeName, 4), slice(kNode2Name, 3), slice(kNode3Name, 2)},
       {},
       {{kNodeName, 16}, {kNode2Name, 15}, {kNode3Name, 14}},
       {{kNodeName, 100}, {kNode2Name, 93}, {kNode3Name, 87}}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    TestEnv env;
    for (const auto& s : tc.slices) env.add(s);
    for (const auto& c : tc.claims) env.add(c);
    env.add(deviceClass());
    DynamicResources::Features features;
    features.enableDRAPrioritizedList = true;
    auto& pl = env.create(nullptr, features);
    env.start();
    env.waitForInformer();
    std::vector<framework::NodeInfoPtr> nodes;
    for (const auto& n : tc.nodes) nodes.push_back(plugintesting::nodeInfoWith(makeNode(n)));
    auto pod = plugintesting::podInfo(tc.pod);
    framework::CycleState state;
    framework::PreFilterResult pf;
    ASSERT_TRUE(pl.preFilter(state, *pod, nodes, pf).isSuccess());
    framework::NodeScoreList scores;
    for (const auto& node : nodes) {
      const std::string& name = node->node()->metadata.name;
      const Status status = pl.filter(state, *pod, *node);
      auto want = tc.filter.find(name);
      EXPECT_EQ(status, want == tc.filter.end() ? Status() : want->second) << name;
      if (!status.isSuccess()) continue;
      int64_t score = -1;
      EXPECT_TRUE(pl.score(state, *pod, *node, score).isSuccess());
      EXPECT_EQ(score, tc.scores.at(name)) << name;
      scores.push_back({name, score});
    }
    EXPECT_TRUE(pl.normalizeScore(state, *pod, scores).isSuccess());
    EXPECT_EQ(scores, tc.normalized);
    // Without DRAPrioritizedList the plugin does not score.
    DynamicResources::Features off;
    off.enableDRAPrioritizedList = false;
    TestEnv env2;
    auto& plOff = env2.create(nullptr, off);
    int64_t score = -1;
    EXPECT_TRUE(plOff.score(state, *pod, *nodes[0], score).isSuccess());
    EXPECT_EQ(score, 0);
  }
}

}  // namespace
}  // namespace ks::plugins::dynamicresources
