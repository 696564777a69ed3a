#include "pkg/dra/structured/allocator.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <utility>

#include "pkg/dra/structured/consumable_capacity.h"

namespace ks::dra::structured {

cel::Device celDevice(const api::Device& device, const std::string& driver) {
  cel::Device d;
  d.driver = driver;
  d.allowMultipleAllocations = device.allowMultipleAllocations;
  for (const auto& [name, a] : device.attributes)
    d.attributes.emplace(name,
                         cel::DeviceAttributeValue{a.intValue, a.boolValue, a.stringValue, a.versionValue});
  for (const auto& [name, c] : device.capacity) d.capacity.emplace(name, c.value);
  return d;
}

namespace {

const std::vector<api::DeviceSelector> kNoSelectors;
const std::vector<api::DeviceToleration> kNoTolerations;

std::string kobj(const api::ResourceClaim& claim) {
  if (claim.metadata.namespace_.empty()) return claim.metadata.name;
  return claim.metadata.namespace_ + "/" + claim.metadata.name;
}

// Upstream uses a time-based UUID; any unique ID does.
std::string generateShareID() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  const uint64_t hi = rng();
  const uint64_t lo = rng();
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>((hi & 0x0fff) | 0x4000),
                static_cast<unsigned>(((lo >> 48) & 0x3fff) | 0x8000),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

// Either a request with `exactly` or one subrequest of a prioritized list (upstream's requestAccessor).
struct RequestView {
  const api::DeviceRequest* request = nullptr;
  const api::DeviceSubRequest* subRequest = nullptr;

  const std::string& name() const { return subRequest ? subRequest->name : request->name; }
  const api::ExactDeviceRequest* exactly() const {
    return request && request->exactly ? &*request->exactly : nullptr;
  }
  std::string deviceClassName() const {
    if (subRequest) return subRequest->deviceClassName;
    return exactly() ? exactly()->deviceClassName : "";
  }
  std::string allocationMode() const {
    if (subRequest) return subRequest->allocationMode;
    return exactly() ? exactly()->allocationMode : "";
  }
  int64_t count() const {
    if (subRequest) return subRequest->count;
    return exactly() ? exactly()->count : 0;
  }
  bool adminAccess() const { return !subRequest && exactly() && exactly()->adminAccess.value_or(false); }
  bool hasAdminAccess() const { return !subRequest && exactly() && exactly()->adminAccess.has_value(); }
  const std::vector<api::DeviceSelector>& selectors() const {
    if (subRequest) return subRequest->selectors;
    return exactly() ? exactly()->selectors : kNoSelectors;
  }
  const std::vector<api::DeviceToleration>& tolerations() const {
    if (subRequest) return subRequest->tolerations;
    return exactly() ? exactly()->tolerations : kNoTolerations;
  }
  const api::CapacityRequirements* capacities() const {
    if (subRequest) return subRequest->capacity ? &*subRequest->capacity : nullptr;
    return exactly() && exactly()->capacity ? &*exactly()->capacity : nullptr;
  }
};

struct RequestIndices {
  int claimIndex = 0;
  int requestIndex = 0;
  int subRequestIndex = 0;
  auto operator<=>(const RequestIndices&) const = default;
};

struct DeviceIndices {
  int claimIndex = 0;
  int requestIndex = 0;
  int subRequestIndex = 0;  // only meaningful while allocating one subrequest
  int64_t deviceIndex = 0;  // which of the request's devices
};

struct MatchKey {
  DeviceID deviceID;
  RequestIndices request;
  auto operator<=>(const MatchKey&) const = default;
};

struct DeviceWithID {
  const api::Device* device = nullptr;
  DeviceID id;
  const api::ResourceSlice* slice = nullptr;
  const Pool* pool = nullptr;
};

// Where a device is in the pools: the search for a request's next device starts after the previous one,
// so that a request's devices are tried as combinations rather than permutations.
struct DeviceLocation {
  size_t poolIndex = 0;
  size_t sliceIndex = 0;
  size_t deviceIndex = 0;
};

struct RequestData {
  RequestView request;
  const api::DeviceRequest* parentRequest = nullptr;  // set for subrequests
  std::shared_ptr<const api::DeviceClass> deviceClass;
  int64_t numDevices = 0;
  // Kept in the entry with subRequestIndex 0: the subrequest that got picked.
  int selectedSubRequestIndex = 0;
  // For allocation mode All: the devices, determined up front.
  std::vector<DeviceWithID> allDevices;

  std::string requestName() const {
    if (parentRequest) return parentRequest->name + "/" + request.name();
    return request.name();
  }
};

struct InternalDeviceResult {
  const api::Device* device = nullptr;
  std::string request;        // the request, or the subrequest
  std::string parentRequest;  // the subrequest's request, else empty
  DeviceID id;
  std::optional<std::string> shareID;
  const api::ResourceSlice* slice = nullptr;
  std::optional<ConsumedCapacity> consumedCapacity;
  std::optional<bool> adminAccess;
  const std::vector<api::DeviceToleration>* tolerations = nullptr;  // the request's, copied into the result

  std::string requestName() const { return parentRequest.empty() ? request : parentRequest + "/" + request; }
};

// Found by exact name, or for the driver's own domain by the bare identifier.
const api::DeviceAttribute* lookupAttribute(const api::Device& device, const DeviceID& id,
                                            const std::string& attributeName) {
  if (auto it = device.attributes.find(attributeName); it != device.attributes.end()) return &it->second;
  const size_t slash = attributeName.find('/');
  if (slash == std::string::npos) return nullptr;
  if (attributeName.compare(0, slash, id.driver) != 0) return nullptr;
  if (auto it = device.attributes.find(attributeName.substr(slash + 1)); it != device.attributes.end())
    return &it->second;
  return nullptr;
}

// Constraints are monotonic: once add() fails, more devices will not make it succeed.
class Constraint {
 public:
  virtual ~Constraint() = default;
  // Whether `device` may join the set; if so it is now counted.
  virtual bool add(const std::string& requestName, const std::string& subRequestName,
                   const api::Device& device, const DeviceID& id) = 0;
  // Undoes one successful add() with the same arguments.
  virtual void remove(const std::string& requestName, const std::string& subRequestName,
                      const api::Device& device, const DeviceID& id) = 0;
};

class RequestScopedConstraint : public Constraint {
 public:
  RequestScopedConstraint(const std::vector<std::string>& requests, std::string attributeName)
      : requestNames_(requests.begin(), requests.end()), attributeName_(std::move(attributeName)) {}

 protected:
  // No request names: the constraint covers every request.
  bool applies(const std::string& requestName, const std::string& subRequestName) const {
    if (requestNames_.empty()) return true;
    if (subRequestName.empty()) return requestNames_.contains(requestName);
    return requestNames_.contains(requestName) || requestNames_.contains(requestName + "/" + subRequestName);
  }

  std::set<std::string> requestNames_;
  std::string attributeName_;
};

// All devices share one value of the attribute.
class MatchAttributeConstraint final : public RequestScopedConstraint {
 public:
  using RequestScopedConstraint::RequestScopedConstraint;

  bool add(const std::string& requestName, const std::string& subRequestName, const api::Device& device,
           const DeviceID& id) override {
    if (!applies(requestName, subRequestName)) return true;
    const api::DeviceAttribute* attribute = lookupAttribute(device, id, attributeName_);
    if (!attribute) return false;
    if (numDevices_ == 0) {
      attribute_ = *attribute;
      numDevices_ = 1;
      return true;
    }
    if (attribute->stringValue) {
      if (!attribute_.stringValue || *attribute->stringValue != *attribute_.stringValue) return false;
    } else if (attribute->intValue) {
      if (!attribute_.intValue || *attribute->intValue != *attribute_.intValue) return false;
    } else if (attribute->boolValue) {
      if (!attribute_.boolValue || *attribute->boolValue != *attribute_.boolValue) return false;
    } else if (attribute->versionValue) {
      // semver 2.0.0 versions are minimal (no leading zeros), so equal versions are equal strings.
      if (!attribute_.versionValue || *attribute->versionValue != *attribute_.versionValue) return false;
    } else {
      return false;  // unknown value type
    }
    ++numDevices_;
    return true;
  }

  void remove(const std::string& requestName, const std::string& subRequestName, const api::Device&,
              const DeviceID&) override {
    if (!applies(requestName, subRequestName)) return;
    --numDevices_;
  }

 private:
  api::DeviceAttribute attribute_;
  int numDevices_ = 0;
};

// No two devices share a value of the attribute.
class DistinctAttributeConstraint final : public RequestScopedConstraint {
 public:
  using RequestScopedConstraint::RequestScopedConstraint;

  bool add(const std::string& requestName, const std::string& subRequestName, const api::Device& device,
           const DeviceID& id) override {
    if (!applies(requestName, subRequestName)) return true;
    const api::DeviceAttribute* attribute = lookupAttribute(device, id, attributeName_);
    if (!attribute || !isDistinct(*attribute)) return false;
    attributes_.push_back(attribute);
    return true;
  }

  // Devices are removed in the reverse order of adding them.
  void remove(const std::string& requestName, const std::string& subRequestName, const api::Device&,
              const DeviceID&) override {
    if (!applies(requestName, subRequestName)) return;
    attributes_.pop_back();
  }

 private:
  bool isDistinct(const api::DeviceAttribute& attribute) const {
    for (const api::DeviceAttribute* attr : attributes_) {
      if (attribute.stringValue) {
        if (attr->stringValue && *attribute.stringValue == *attr->stringValue) return false;
      } else if (attribute.intValue) {
        if (attr->intValue && *attribute.intValue == *attr->intValue) return false;
      } else if (attribute.boolValue) {
        if (attr->boolValue && *attribute.boolValue == *attr->boolValue) return false;
      } else if (attribute.versionValue) {
        // semver 2.0.0 versions are minimal (no leading zeros), so equal versions are equal strings.
        if (attr->versionValue && *attribute.versionValue == *attr->versionValue) return false;
      } else {
        return false;  // unknown value type
      }
    }
    return true;
  }

  std::vector<const api::DeviceAttribute*> attributes_;  // of the devices added so far, pointing into slices
};

bool toleratesTaint(const api::DeviceToleration& toleration, const api::DeviceTaint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.op.empty() || toleration.op == api::kDeviceTolerationOpEqual)
    return toleration.value == taint.value;
  return toleration.op == api::kDeviceTolerationOpExists;
}

// Only the NoSchedule and NoExecute effects keep a device from being allocated (None and unknown ones do
// not), unless tolerated.
bool taintPreventsAllocation(const api::Device& device, const RequestView& request) {
  for (const auto& taint : device.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    bool tolerated = false;
    for (const auto& toleration : request.tolerations()) {
      if (toleratesTaint(toleration, taint)) {
        tolerated = true;
        break;
      }
    }
    if (!tolerated) return true;
  }
  return false;
}

bool containsNodeSelectorRequirement(const std::vector<api::NodeSelectorRequirement>& requirements,
                                     const api::NodeSelectorRequirement& requirement) {
  const std::set<std::string> values(requirement.values.begin(), requirement.values.end());
  for (const auto& existing : requirements) {
    if (existing.key != requirement.key || existing.op != requirement.op) continue;
    if (std::set<std::string>(existing.values.begin(), existing.values.end()) != values) continue;
    return true;
  }
  return false;
}

void addNewNodeSelectorRequirements(const std::vector<api::NodeSelectorRequirement>& from,
                                    std::vector<api::NodeSelectorRequirement>& to) {
  for (const auto& requirement : from)
    if (!containsNodeSelectorRequirement(to, requirement)) to.push_back(requirement);
}

// Where the claim's devices are available: the node itself once one device is node-local (or binds to the
// node), else the union of the network-attached devices' selector requirements, else everywhere (nullopt).
Result<std::optional<api::NodeSelector>> createNodeSelector(const std::vector<InternalDeviceResult>& results,
                                                            const std::string& targetNodeName) {
  api::NodeSelector ns;
  ns.nodeSelectorTerms.emplace_back();
  api::NodeSelectorTerm& term = ns.nodeSelectorTerms.front();
  for (const auto& result : results) {
    const auto& sliceSpec = result.slice->spec;
    const bool perDevice = sliceSpec.perDeviceNodeSelection.value_or(false);
    const std::optional<std::string>& nodeName = perDevice ? result.device->nodeName : sliceSpec.nodeName;
    const std::optional<api::NodeSelector>& nodeSelector =
        perDevice ? result.device->nodeSelector : sliceSpec.nodeSelector;
    if (nodeName || result.device->bindsToNode.value_or(false)) {
      api::NodeSelector local;
      local.nodeSelectorTerms.push_back(
          api::NodeSelectorTerm{.matchFields = {api::NodeSelectorRequirement{
                                    .key = "metadata.name", .op = "In", .values = {targetNodeName}}}});
      return std::optional<api::NodeSelector>(std::move(local));
    }
    if (!nodeSelector) continue;
    switch (nodeSelector->nodeSelectorTerms.size()) {
      case 0:
        break;
      case 1:
        addNewNodeSelectorRequirements(nodeSelector->nodeSelectorTerms[0].matchFields, term.matchFields);
        addNewNodeSelectorRequirements(nodeSelector->nodeSelectorTerms[0].matchExpressions,
                                       term.matchExpressions);
        break;
      default:
        // Validation does not admit such slices.
        return Error("unsupported ResourceSlice.NodeSelector with " +
                     std::to_string(nodeSelector->nodeSelectorTerms.size()) + " terms");
    }
  }
  if (!term.matchFields.empty() || !term.matchExpressions.empty())
    return std::optional<api::NodeSelector>(std::move(ns));
  return std::optional<api::NodeSelector>();
}

// allocateOne's outcome besides errors: upstream's (true, nil), (false, nil) and
// (false, errAllocationResultMaxSizeExceeded).
enum class Outcome { kNotFound, kFound, kMaxSizeExceeded };

}  // namespace

// The state of one allocate() call (upstream's allocator struct); used by one thread only.
class AllocationRun {
 public:
  AllocationRun(const Allocator& allocator, const api::Node* node,
                const std::vector<ResourceClaimPtr>& claims, const AllocateContext& ctx)
      : a_(allocator), features_(allocator.features_), node_(node), claims_(claims), ctx_(ctx) {}

  Result<std::vector<api::AllocationResult>> run();
  // Whether run()'s error concerns only this node (invalid pools).
  bool failedOnNode() const { return failedOnNode_; }

 private:
  using Rollback = std::function<void()>;

  const api::ResourceClaim& claim(int index) const { return *claims_[static_cast<size_t>(index)]; }
  // "request/subrequest" for the subrequest picked for a prioritized list, else empty.
  std::string pickedSubRequestName(int claimIndex, int requestIndex) {
    const RequestData& data = requestData_[RequestIndices{claimIndex, requestIndex, 0}];
    if (!data.parentRequest) return "";
    return data.parentRequest->name + "/" +
           data.parentRequest->firstAvailable[static_cast<size_t>(data.selectedSubRequestIndex)].name;
  }
  Result<RequestData> validateDeviceRequest(const RequestView& request,
                                            const api::DeviceRequest* parentRequest,
                                            const RequestIndices& requestKey);
  Result<Outcome> allocateOne(DeviceIndices r, bool allocateSubRequest, DeviceLocation start = {});
  Result<bool> isSelectable(const RequestIndices& r, const RequestData& requestData,
                            const api::ResourceSlice& slice, size_t deviceIndex);
  Result<bool> selectorsMatch(const RequestIndices& r, const api::Device& device, const DeviceID& id,
                              const api::DeviceClass* deviceClass,
                              const std::vector<api::DeviceSelector>& selectors);
  // Whether the device's remaining capacity takes the request.
  Result<bool> requestFitsCapacity(const RequestView& request, const api::ResourceSlice& slice,
                                   const api::Device& device);
  // nullopt: the device cannot be used (in use, constraint, counters, ...). Otherwise how to undo.
  Result<std::optional<Rollback>> allocateDevice(const DeviceIndices& r, const DeviceWithID& device,
                                                 bool must);
  // What allocateDevice changed for one candidate, so that rollbackDevice can undo exactly that.
  struct RollbackState {
    bool countersReserved = false;
    size_t constraintsAdded = 0;
    bool deviceMarked = false;
    bool capacityInserted = false;
    bool capacityEntryExisted = false;
    bool resultAdded = false;
    size_t previousNumResults = 0;
    ConsumedCapacity consumedCapacity;
  };
  void rollbackDevice(const DeviceIndices& r, const DeviceWithID& device, const std::string& baseRequestName,
                      const std::string& subRequestName, const RollbackState& state);
  bool checkAvailableCounters(const DeviceWithID& device);
  void deallocateCountersForDevice(const DeviceWithID& device);

  bool deviceInUse(const DeviceID& id) const {
    return a_.allocatedState_.allocatedDevices.contains(id) || allocatingDeviceForAnyClaim(id);
  }
  // A multi-allocatable device that some allocation (done or in progress) already shares.
  bool deviceCapacityInUse(const DeviceID& id) const {
    if (a_.allocatedState_.aggregatedCapacity.contains(id)) return true;
    for (const auto& shared : a_.allocatedState_.allocatedSharedDeviceIDs)
      if (shared.deviceID() == id) return true;
    return allocatingCapacity_.contains(id);
  }
  bool allocatingDeviceForAnyClaim(const DeviceID& id) const {
    auto it = allocatingDevices_.find(id);
    return it != allocatingDevices_.end() && !it->second.empty();
  }
  bool allocatingDeviceForClaim(const DeviceID& id, int claimIndex) const {
    auto it = allocatingDevices_.find(id);
    return it != allocatingDevices_.end() && it->second.contains(claimIndex);
  }

  const Allocator& a_;
  const Features& features_;
  const api::Node* node_;
  const std::vector<ResourceClaimPtr>& claims_;
  const AllocateContext& ctx_;

  std::vector<Pool> pools_;
  std::map<MatchKey, bool> deviceMatchesRequest_;
  std::vector<std::vector<std::unique_ptr<Constraint>>> constraints_;  // per claim
  // Counters consumed by the devices being allocated, by pool.
  std::map<PoolID, Allocator::CounterSets> consumedCounters_;
  // One entry per request without subrequests and one per subrequest.
  std::map<RequestIndices, RequestData> requestData_;
  // Devices picked in the current attempt, with the claims (by index) they are picked for.
  std::map<DeviceID, std::set<int>> allocatingDevices_;
  // Capacity of multi-allocatable devices consumed in the current attempt.
  ConsumedCapacityCollection allocatingCapacity_;
  std::vector<std::vector<InternalDeviceResult>> result_;  // per claim
  bool failedOnNode_ = false;
};

Features Allocator::supportedFeatures() {
  // All but those only upstream's experimental variant implements.
  Features f = Features::all();
  f.compatibilityGroups = false;
  f.derivedAttributes = false;
  f.listTypeAttributes = false;
  f.optionalNodeOperations = false;
  return f;
}

Allocator::Allocator(Features features, AllocatedState allocatedState,
                     std::shared_ptr<const DeviceClassLister> classLister,
                     std::vector<ResourceSlicePtr> slices, std::shared_ptr<cel::Cache> celCache)
    : features_(features),
      allocatedState_(std::move(allocatedState)),
      classLister_(std::move(classLister)),
      allSlices_(std::move(slices)),
      celCache_(std::move(celCache)) {
  const std::set<std::string> enabled = features_.enabledGates();
  const std::set<std::string> supported = supportedFeatures().enabledGates();
  if (!std::includes(supported.begin(), supported.end(), enabled.begin(), enabled.end()))
    unsupported_ = Error("internal error: no allocator available for feature set " + features_.toString() +
                         ", enabled allocators: incubating");
  for (const auto& slice : allSlices_) {
    if (slice->spec.nodeName && !slice->spec.nodeName->empty())
      slicesOnNode_[*slice->spec.nodeName].push_back(slice);
    else
      slicesShared_.push_back(slice);
  }
}

AllocateResult Allocator::allocate(const api::Node* node, const std::vector<ResourceClaimPtr>& claims,
                                   const AllocateContext& ctx) const {
  if (unsupported_) return AllocationError(*unsupported_);
  AllocationRun run(*this, node, claims, ctx);
  auto results = run.run();
  if (!results.ok()) return AllocationError(results.error(), run.failedOnNode());
  return std::move(results).value();
}

Stats Allocator::stats() const {
  return Stats{.numAllocateOneInvocations = numAllocateOneInvocations_.load()};
}

Result<std::vector<api::AllocationResult>> AllocationRun::run() {
  // The node's own slices and those without a node name (node selectors, all nodes, per device).
  std::vector<ResourceSlicePtr> slicesForNode;
  if (node_)
    if (auto it = a_.slicesOnNode_.find(node_->metadata.name); it != a_.slicesOnNode_.end())
      slicesForNode = it->second;
  slicesForNode.insert(slicesForNode.end(), a_.slicesShared_.begin(), a_.slicesShared_.end());
  auto pools = gatherPools(slicesForNode, node_, features_, a_.allSlices_);
  if (!pools.ok()) return pools.error().wrap("gather pool information");
  pools_ = std::move(*pools);

  const int numClaims = static_cast<int>(claims_.size());
  constraints_.resize(claims_.size());
  result_.resize(claims_.size());
  for (int claimIndex = 0; claimIndex < numClaims; ++claimIndex) {
    const api::ResourceClaim& c = claim(claimIndex);
    int64_t minDevicesPerClaim = 0;
    const auto& requests = c.spec.devices.requests;
    for (int requestIndex = 0; requestIndex < static_cast<int>(requests.size()); ++requestIndex) {
      const api::DeviceRequest& request = requests[static_cast<size_t>(requestIndex)];
      RequestIndices requestKey{claimIndex, requestIndex, 0};
      const bool hasSubRequests = !request.firstAvailable.empty();
      if (!features_.prioritizedList && hasSubRequests)
        return Error("claim " + kobj(c) + ", request " + request.name +
                     ": has subrequests, but the DRAPrioritizedList feature is disabled");
      if (!features_.consumableCapacity) {
        if (request.exactly && request.exactly->capacity)
          return Error("claim " + kobj(c) + ", request " + request.name +
                       ": has capacity requests, but the DRAConsumableCapacity feature is disabled");
        for (const auto& sub : request.firstAvailable)
          if (sub.capacity)
            return Error("claim " + kobj(c) + ", subrequest " + sub.name +
                         ": has capacity requests, but the DRAConsumableCapacity feature is disabled");
      }
      int64_t minDevicesPerRequest = 0;
      if (hasSubRequests) {
        // Only a lower bound: which subrequest gets picked decides.
        minDevicesPerRequest = std::numeric_limits<int64_t>::max();
        for (int i = 0; i < static_cast<int>(request.firstAvailable.size()); ++i) {
          requestKey.subRequestIndex = i;
          auto data = validateDeviceRequest(
              RequestView{nullptr, &request.firstAvailable[static_cast<size_t>(i)]}, &request, requestKey);
          if (!data.ok()) return data.error();
          minDevicesPerRequest = std::min(minDevicesPerRequest, data->numDevices);
          requestData_[requestKey] = std::move(*data);
        }
      } else {
        auto data = validateDeviceRequest(RequestView{&request, nullptr}, nullptr, requestKey);
        if (!data.ok()) return data.error();
        minDevicesPerRequest = data->numDevices;
        requestData_[requestKey] = std::move(*data);
      }
      // Compared with what is left rather than added up, so that a huge count cannot overflow.
      if (minDevicesPerRequest > kAllocationResultsMaxSize - minDevicesPerClaim)
        return Error("claim " + kobj(c) + ", request " + request.name + ": adding " +
                     std::to_string(minDevicesPerRequest) + " devices exceeds the claim limit of " +
                     std::to_string(kAllocationResultsMaxSize) + ", with " +
                     std::to_string(minDevicesPerClaim) + " already accounted for");
      minDevicesPerClaim += minDevicesPerRequest;
    }
    // A lower bound only (a subrequest may pick more), so allocateOne checks again.
    result_[static_cast<size_t>(claimIndex)].reserve(static_cast<size_t>(minDevicesPerClaim));

    auto& claimConstraints = constraints_[static_cast<size_t>(claimIndex)];
    const auto& constraints = c.spec.devices.constraints;
    for (size_t i = 0; i < constraints.size(); ++i) {
      if (constraints[i].matchAttribute)
        claimConstraints.push_back(std::make_unique<MatchAttributeConstraint>(
            constraints[i].requests, *constraints[i].matchAttribute));
      else if (constraints[i].distinctAttribute)
        claimConstraints.push_back(std::make_unique<DistinctAttributeConstraint>(
            constraints[i].requests, *constraints[i].distinctAttribute));
      else
        return Error("claim " + kobj(c) + ", constraint #" + std::to_string(i) +
                     ": empty constraint (unsupported constraint type?)");
    }
  }

  // Matches found while validating were keyed for validation; start afresh as upstream does.
  deviceMatchesRequest_.clear();

  auto outcome = allocateOne(DeviceIndices{}, false);
  if (!outcome.ok()) return outcome.error();
  if (*outcome != Outcome::kFound) {
    // Invalid pools were skipped during the search, as other pools may have done. Now that nothing fits,
    // they may be why: an error for this node only.
    for (const Pool& pool : pools_) {
      if (!pool.isInvalid) continue;
      failedOnNode_ = true;
      return Error("invalid resource pools were encountered");
    }
    return std::vector<api::AllocationResult>{};
  }

  std::vector<api::AllocationResult> results(claims_.size());
  for (int claimIndex = 0; claimIndex < numClaims; ++claimIndex) {
    const api::ResourceClaim& c = claim(claimIndex);
    const auto& internal = result_[static_cast<size_t>(claimIndex)];
    api::AllocationResult& allocation = results[static_cast<size_t>(claimIndex)];
    auto& devices = allocation.devices;
    devices.results.reserve(internal.size());
    for (const auto& r : internal) {
      api::DeviceRequestAllocationResult out{
          .request = r.requestName(),
          .driver = r.id.driver,
          .pool = r.id.pool,
          .device = r.id.device,
          .adminAccess = r.adminAccess,
          .shareID = r.shareID,
      };
      if (r.tolerations) out.tolerations = *r.tolerations;
      if (r.consumedCapacity)
        out.consumedCapacity.insert(r.consumedCapacity->begin(), r.consumedCapacity->end());
      if (features_.deviceBindingAndStatus) {
        out.bindingConditions = r.device->bindingConditions;
        out.bindingFailureConditions = r.device->bindingFailureConditions;
      }
      devices.results.push_back(std::move(out));
    }

    // Each class's configuration is added once, listing every request that uses the class.
    std::map<std::string, std::pair<size_t, size_t>> configRangeForClass;
    const auto& requests = c.spec.devices.requests;
    for (int requestIndex = 0; requestIndex < static_cast<int>(requests.size()); ++requestIndex) {
      RequestIndices requestKey{claimIndex, requestIndex, 0};
      const RequestData* data = &requestData_[requestKey];
      if (data->parentRequest) {
        requestKey.subRequestIndex = data->selectedSubRequestIndex;
        data = &requestData_[requestKey];
      }
      if (!data->deviceClass) continue;
      const std::string& className = data->deviceClass->metadata.name;
      if (auto it = configRangeForClass.find(className); it != configRangeForClass.end()) {
        for (size_t i = it->second.first; i < it->second.second; ++i)
          devices.config[i].requests.push_back(data->requestName());
        continue;
      }
      const size_t start = devices.config.size();
      for (const auto& config : data->deviceClass->spec.config)
        devices.config.push_back(
            api::DeviceAllocationConfiguration{.source = std::string(api::kAllocationConfigSourceClass),
                                               .requests = {data->requestName()},
                                               .opaque = config.opaque});
      configRangeForClass[className] = {start, devices.config.size()};
    }
    for (const auto& config : c.spec.devices.config) {
      const api::DeviceAllocationConfiguration fromClaim{
          .source = std::string(api::kAllocationConfigSourceClaim),
          .requests = config.requests,
          .opaque = config.opaque};
      if (config.requests.empty()) {  // applies to all requests
        devices.config.push_back(fromClaim);
        continue;
      }
      // Added once when it names some request (or the picked subrequest) of the claim.
      auto contains = [&](const std::string& name) {
        return std::find(config.requests.begin(), config.requests.end(), name) != config.requests.end();
      };
      for (int i = 0; i < static_cast<int>(requests.size()); ++i)
        if (contains(requests[static_cast<size_t>(i)].name) ||
            contains(pickedSubRequestName(claimIndex, i))) {
          devices.config.push_back(fromClaim);
          break;
        }
    }
    // A configuration for every request of the claim is stored as one for all (no requests).
    for (auto& config : devices.config) {
      if (config.requests.empty()) continue;
      auto contains = [&](const std::string& name) {
        return std::find(config.requests.begin(), config.requests.end(), name) != config.requests.end();
      };
      bool appliesToAll = true;
      for (int i = 0; i < static_cast<int>(requests.size()) && appliesToAll; ++i)
        appliesToAll =
            contains(requests[static_cast<size_t>(i)].name) || contains(pickedSubRequestName(claimIndex, i));
      if (appliesToAll) config.requests.clear();
    }

    auto nodeSelector = createNodeSelector(internal, node_ ? node_->metadata.name : "");
    if (!nodeSelector.ok())
      return nodeSelector.error().wrap("create NodeSelector for claim " + c.metadata.name);
    allocation.nodeSelector = std::move(*nodeSelector);
  }
  return results;
}

Result<RequestData> AllocationRun::validateDeviceRequest(const RequestView& request,
                                                         const api::DeviceRequest* parentRequest,
                                                         const RequestIndices& requestKey) {
  const api::ResourceClaim& c = claim(requestKey.claimIndex);
  RequestData data{.request = request, .parentRequest = parentRequest};
  const auto& selectors = request.selectors();
  for (size_t i = 0; i < selectors.size(); ++i)
    if (!selectors[i].cel)
      return Error("claim " + kobj(c) + ", request " + request.name() + ", selector #" + std::to_string(i) +
                   ": CEL expression empty (unsupported selector type?)");
  if (!features_.adminAccess && request.hasAdminAccess())
    return Error("claim " + kobj(c) + ", request " + request.name() +
                 ": admin access is requested, but the feature is disabled");
  const std::string className = request.deviceClassName();
  if (className.empty())
    return Error("claim " + kobj(c) + ", request " + request.name() +
                 ": missing device class name (unsupported request type?)");
  auto deviceClass = a_.classLister_->get(className);
  if (!deviceClass.ok())
    return deviceClass.error().wrap("claim " + kobj(c) + ", request " + request.name() +
                                    ": could not retrieve device class " + className);
  data.deviceClass = std::move(*deviceClass);  // isSelectable needs it

  const std::string mode = request.allocationMode();
  if (mode == api::kDeviceAllocationModeExactCount) {
    data.numDevices = request.count();
  } else if (mode == api::kDeviceAllocationModeAll) {
    data.allDevices.reserve(static_cast<size_t>(kAllocationResultsMaxSize));
    for (const Pool& pool : pools_) {
      if (pool.isIncomplete)
        return Error("claim " + kobj(c) + ", request " + request.name() +
                     ": asks for all devices, but resource pool " + pool.id.toString() +
                     " is currently being updated");
      if (pool.isInvalid)
        return Error("claim " + kobj(c) + ", request " + request.name() +
                     ": asks for all devices, but resource pool " + pool.id.toString() +
                     " is currently invalid");
      for (const auto& slice : pool.deviceSlicesTargetingNode) {
        for (size_t deviceIndex = 0; deviceIndex < slice->spec.devices.size(); ++deviceIndex) {
          auto selectable = isSelectable(requestKey, data, *slice, deviceIndex);
          if (!selectable.ok()) return selectable.error();
          if (!*selectable) continue;
          const api::Device& device = slice->spec.devices[deviceIndex];
          if (features_.consumableCapacity) {
            // Only whether the device could take the request at all: its remaining capacity is checked
            // when allocating, so that a device that is full makes "All" fail rather than be left out.
            static const ConsumedCapacity kNothing;
            auto fits =
                cmpRequestOverCapacity(kNothing, request.capacities(), device.allowMultipleAllocations,
                                       device.capacity, &kNothing, features_.fractionalCapacityRange);
            if (!fits.ok())
              return fits.error().wrap("claim " + kobj(c) + ", request " + request.name() +
                                       ": checking capacity for device " + device.name);
            if (!*fits) continue;
          }
          data.allDevices.push_back(
              DeviceWithID{.device = &device,
                           .id = DeviceID{slice->spec.driver, slice->spec.pool.name, device.name},
                           .slice = slice.get(),
                           .pool = &pool});
        }
      }
    }
    data.numDevices = static_cast<int64_t>(data.allDevices.size());
  } else {
    return Error("claim " + kobj(c) + ", request " + request.name() + ": unsupported count mode " + mode);
  }
  return data;
}

Result<Outcome> AllocationRun::allocateOne(DeviceIndices r, bool allocateSubRequest, DeviceLocation start) {
  a_.numAllocateOneInvocations_.fetch_add(1, std::memory_order_relaxed);
  if (auto err = ctx_.err()) return Error("filter operation aborted: " + *err);

  if (r.claimIndex >= static_cast<int>(claims_.size())) return Outcome::kFound;  // first solution wins

  const api::ResourceClaim& c = claim(r.claimIndex);
  if (r.requestIndex >= static_cast<int>(c.spec.devices.requests.size())) {
    auto next = allocateOne(DeviceIndices{.claimIndex = r.claimIndex + 1}, false);
    // Not fatal: with a different allocation of earlier claims, a subrequest here that needs fewer
    // devices may fit.
    if (next.ok() && *next == Outcome::kMaxSizeExceeded) return Outcome::kNotFound;
    return next;
  }

  const RequestIndices requestKey{r.claimIndex, r.requestIndex, r.subRequestIndex};
  RequestData& requestData = requestData_[requestKey];

  // A prioritized list: the first subrequest that works wins.
  if (!allocateSubRequest && requestData.parentRequest) {
    // When every subrequest hits the result size limit, so will every other choice for the previous
    // request; the caller can backtrack further.
    bool allAllocationExceeded = true;
    for (int subRequestIndex = 0;; ++subRequestIndex) {
      RequestIndices nextKey = requestKey;
      nextKey.subRequestIndex = subRequestIndex;
      if (!requestData_.contains(nextKey))
        return allAllocationExceeded ? Outcome::kMaxSizeExceeded : Outcome::kNotFound;
      r.subRequestIndex = subRequestIndex;
      auto outcome = allocateOne(r, true);
      if (outcome.ok() && *outcome == Outcome::kMaxSizeExceeded) continue;  // a later one may need fewer
      allAllocationExceeded = false;
      if (!outcome.ok()) return outcome.error();
      if (*outcome == Outcome::kFound) {
        requestData.selectedSubRequestIndex = subRequestIndex;
        return Outcome::kFound;
      }
    }
  }

  const RequestView& request = requestData.request;
  const bool doAllDevices = request.allocationMode() == api::kDeviceAllocationModeAll;
  if (doAllDevices && requestData.allDevices.empty()) return Outcome::kNotFound;  // "All" needs at least one

  if (r.deviceIndex >= requestData.numDevices) {
    // Request (or subrequest) complete; the size-limit signal passes through to the caller.
    return allocateOne(DeviceIndices{.claimIndex = r.claimIndex, .requestIndex = r.requestIndex + 1}, false);
  }

  // Would the rest of this request push the claim over the limit? (Compared, not added, against overflow.)
  const int64_t remaining = requestData.numDevices - r.deviceIndex;
  const int64_t available =
      kAllocationResultsMaxSize - static_cast<int64_t>(result_[static_cast<size_t>(r.claimIndex)].size());
  if (remaining > available) return Outcome::kMaxSizeExceeded;

  if (doAllDevices) {
    // The devices are known; order does not matter, so if the next one is unusable there is no solution.
    const DeviceWithID& device = requestData.allDevices[static_cast<size_t>(r.deviceIndex)];
    auto allocated = allocateDevice(r, device, true);
    if (!allocated.ok()) return allocated.error();
    if (!*allocated) return Outcome::kNotFound;
    auto done = allocateOne(DeviceIndices{.claimIndex = r.claimIndex,
                                          .requestIndex = r.requestIndex,
                                          .subRequestIndex = r.subRequestIndex,
                                          .deviceIndex = r.deviceIndex + 1},
                            allocateSubRequest);
    if (!done.ok() || *done != Outcome::kFound) (**allocated)();
    return done;
  }

  // The devices of one request are picked in pool order, each after the previous one (start).
  for (size_t poolIndex = start.poolIndex; poolIndex < pools_.size(); ++poolIndex) {
    const Pool& pool = pools_[poolIndex];
    // Not allocated from, but other pools may do.
    if (pool.isIncomplete || pool.isInvalid) continue;
    const auto& slices = pool.deviceSlicesTargetingNode;
    const size_t sliceStart = poolIndex == start.poolIndex ? start.sliceIndex : 0;
    for (size_t sliceIndex = sliceStart; sliceIndex < slices.size(); ++sliceIndex) {
      const auto& slice = slices[sliceIndex];
      const size_t deviceStart =
          poolIndex == start.poolIndex && sliceIndex == start.sliceIndex ? start.deviceIndex : 0;
      for (size_t deviceIndex = deviceStart; deviceIndex < slice->spec.devices.size(); ++deviceIndex) {
        const api::Device& d = slice->spec.devices[deviceIndex];
        DeviceID deviceID{pool.id.driver, pool.id.pool, d.name};

        // In-use checks are cheap, so they come first.
        if (request.adminAccess() && allocatingDeviceForClaim(deviceID, r.claimIndex)) continue;
        if (!request.adminAccess() && deviceInUse(deviceID)) continue;

        auto selectable = isSelectable(requestKey, requestData, *slice, deviceIndex);
        if (!selectable.ok()) return selectable.error();
        if (!*selectable) continue;
        if (features_.consumableCapacity) {
          auto fits = requestFitsCapacity(requestData.request, *slice, d);
          if (!fits.ok())
            return fits.error().wrap("claim " + kobj(c) + ", request " + request.name() +
                                     ": checking capacity for device " + deviceID.toString());
          if (!*fits) continue;
        }

        DeviceWithID device{.device = &d, .id = std::move(deviceID), .slice = slice.get(), .pool = &pool};
        auto allocated = allocateDevice(r, device, false);
        if (!allocated.ok()) return allocated.error();
        if (!*allocated) continue;  // in use or a constraint says no
        auto done = allocateOne(DeviceIndices{.claimIndex = r.claimIndex,
                                              .requestIndex = r.requestIndex,
                                              .subRequestIndex = r.subRequestIndex,
                                              .deviceIndex = r.deviceIndex + 1},
                                allocateSubRequest, DeviceLocation{poolIndex, sliceIndex, deviceIndex + 1});
        if (done.ok() && *done == Outcome::kFound) return Outcome::kFound;
        (**allocated)();
        // Errors, including the size limit, go up; callers higher up may try other subrequests.
        if (!done.ok() || *done == Outcome::kMaxSizeExceeded) return done;
      }
    }
  }
  return Outcome::kNotFound;
}

Result<bool> AllocationRun::isSelectable(const RequestIndices& r, const RequestData& requestData,
                                         const api::ResourceSlice& slice, size_t deviceIndex) {
  const api::Device& device = slice.spec.devices[deviceIndex];
  if (!features_.deviceBindingAndStatus && !device.bindingConditions.empty()) return false;

  MatchKey key{DeviceID{slice.spec.driver, slice.spec.pool.name, device.name}, r};
  if (auto it = deviceMatchesRequest_.find(key); it != deviceMatchesRequest_.end()) return it->second;

  if (requestData.deviceClass) {
    auto match = selectorsMatch(r, device, key.deviceID, requestData.deviceClass.get(),
                                requestData.deviceClass->spec.selectors);
    if (!match.ok()) return match.error();
    if (!*match) {
      deviceMatchesRequest_[key] = false;
      return false;
    }
  }
  auto match = selectorsMatch(r, device, key.deviceID, nullptr, requestData.request.selectors());
  if (!match.ok()) return match.error();
  if (!*match) {
    deviceMatchesRequest_[key] = false;
    return false;
  }
  if (slice.spec.perDeviceNodeSelection.value_or(false)) {
    auto matches = nodeMatches(node_, orEmpty(device.nodeName), device.allNodes.value_or(false),
                               device.nodeSelector ? &*device.nodeSelector : nullptr);
    if (!matches.ok()) return matches.error();
    if (!*matches) {
      deviceMatchesRequest_[key] = false;
      return false;
    }
  }
  deviceMatchesRequest_[key] = true;
  return true;
}

Result<bool> AllocationRun::selectorsMatch(const RequestIndices& r, const api::Device& device,
                                           const DeviceID& id, const api::DeviceClass* deviceClass,
                                           const std::vector<api::DeviceSelector>& selectors) {
  auto prefix = [&](size_t i) {
    return (deviceClass ? "class " + deviceClass->metadata.name : "claim " + kobj(claim(r.claimIndex))) +
           ": selector #" + std::to_string(i);
  };
  std::optional<cel::Device> input;  // built once, for the first selector that needs it
  cel::EvalOptions options;
  options.interrupted = [this] { return ctx_.err().has_value(); };
  for (size_t i = 0; i < selectors.size(); ++i) {
    // Request selectors were checked in validateDeviceRequest; a class selector of some future type is
    // reported like a compile error instead of crashing.
    if (!selectors[i].cel)
      return Error(prefix(i) + ": CEL compile error: CEL expression empty (unsupported selector type?)");
    auto expr = a_.celCache_->getOrCompile(selectors[i].cel->expression);
    // Possible when an older scheduler meets an expression a newer apiserver accepted.
    if (expr->error()) return Error(prefix(i) + ": CEL compile error: " + *expr->error());
    if (!input) input = celDevice(device, id.driver);
    auto matches = expr->deviceMatches(*input, options);
    if (!matches.ok()) {
      std::string message = matches.error().message();
      // Upstream's cel.EnhanceRuntimeError.
      if (message.find("no such key:") != std::string::npos)
        message +=
            ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check "
            "with has() for optional fields";
      return Error(prefix(i) + " on device " + id.toString() + ": CEL runtime error: " + message);
    }
    if (!*matches) return false;
  }
  return true;
}

Result<bool> AllocationRun::requestFitsCapacity(const RequestView& request, const api::ResourceSlice& slice,
                                                const api::Device& device) {
  const DeviceID id{slice.spec.driver, slice.spec.pool.name, device.name};
  auto allocating = allocatingCapacity_.find(id);
  const ConsumedCapacity* allocatingCapacity =
      allocating == allocatingCapacity_.end() ? nullptr : &allocating->second;
  static const ConsumedCapacity kNone;
  auto allocated = a_.allocatedState_.aggregatedCapacity.find(id);
  const ConsumedCapacity& current =
      allocated == a_.allocatedState_.aggregatedCapacity.end() ? kNone : allocated->second;
  return cmpRequestOverCapacity(current, request.capacities(), device.allowMultipleAllocations,
                                device.capacity, allocatingCapacity, features_.fractionalCapacityRange);
}

Result<std::optional<AllocationRun::Rollback>> AllocationRun::allocateDevice(const DeviceIndices& r,
                                                                             const DeviceWithID& device,
                                                                             bool must) {
  const api::ResourceClaim& c = claim(r.claimIndex);
  const RequestData& requestData =
      requestData_[RequestIndices{r.claimIndex, r.requestIndex, r.subRequestIndex}];
  const RequestView& request = requestData.request;
  const api::Device& d = *device.device;
  const bool allowMultipleAllocations =
      features_.consumableCapacity && d.allowMultipleAllocations.value_or(false);
  const std::optional<Rollback> unusable;

  if (!allowMultipleAllocations && request.adminAccess() && allocatingDeviceForClaim(device.id, r.claimIndex))
    return unusable;
  if (!request.adminAccess() && deviceInUse(device.id)) return unusable;

  if (!features_.partitionableDevices && !d.consumesCounters.empty()) return unusable;
  // A shared multi-allocatable device's counters are charged once, by its first share.
  RollbackState state;
  if (!(allowMultipleAllocations && deviceCapacityInUse(device.id)) && !d.consumesCounters.empty()) {
    // Validation guarantees that consumed counters exist in the pool's counter sets.
    if (!checkAvailableCounters(device)) return unusable;
    state.countersReserved = true;
  }

  std::string parentRequestName;
  std::string baseRequestName;
  std::string subRequestName;
  if (!requestData.parentRequest) {
    baseRequestName = request.name();
  } else {
    parentRequestName = requestData.parentRequest->name;
    baseRequestName = parentRequestName;
    subRequestName = request.name();
  }
  auto& results = result_[static_cast<size_t>(r.claimIndex)];
  state.previousNumResults = results.size();
  // Every rejection from here on undoes what this call did so far.
  auto reject = [&]() -> std::optional<Rollback> {
    rollbackDevice(r, device, baseRequestName, subRequestName, state);
    return std::nullopt;
  };

  if (features_.deviceTaints && taintPreventsAllocation(d, request)) return reject();

  for (auto& constraint : constraints_[static_cast<size_t>(r.claimIndex)]) {
    if (!constraint->add(baseRequestName, subRequestName, d, device.id)) {
      reject();
      // A claim whose constraints rule out one of the "All" devices makes no sense.
      if (must)
        return Error("claim " + kobj(c) + ", request " + request.name() + ": cannot add device " +
                     device.id.toString() + " because a claim constraint would not be satisfied");
      return unusable;
    }
    ++state.constraintsAdded;
  }

  // Mark as in use, unless the device takes several allocations.
  if (!allowMultipleAllocations) {
    allocatingDevices_[device.id].insert(r.claimIndex);
    state.deviceMarked = true;
  }

  std::optional<std::string> shareID;
  if (features_.consumableCapacity) {
    auto fits = requestFitsCapacity(request, *device.slice, d);
    if (!fits.ok()) {
      reject();
      return fits.error().wrap("claim " + kobj(c) + ", request " + request.name() +
                               ": rechecking capacity for device " + device.id.toString());
    }
    if (!*fits) return reject();
    if (allowMultipleAllocations) {
      auto consumed =
          consumedCapacityFromRequest(request.capacities(), d.capacity, features_.fractionalCapacityRange);
      if (!consumed.ok()) {
        reject();
        return consumed.error().wrap("claim " + kobj(c) + ", request " + request.name() +
                                     ": computing consumed capacity for device " + device.id.toString());
      }
      state.consumedCapacity = std::move(*consumed);
      shareID = generateShareID();
      // An entry of an earlier share marks the device as shared; rollback must keep it.
      state.capacityEntryExisted = allocatingCapacity_.contains(device.id);
      allocatingCapacity_.insert(DeviceConsumedCapacity{device.id, state.consumedCapacity});
      state.capacityInserted = true;
    }
  }

  InternalDeviceResult result{
      .device = &d,
      .request = request.name(),
      .parentRequest = parentRequestName,
      .id = device.id,
      .shareID = shareID,
      .slice = device.slice,
      .tolerations = &request.tolerations(),
  };
  if (request.adminAccess()) result.adminAccess = true;
  if (!state.consumedCapacity.empty()) result.consumedCapacity = state.consumedCapacity;
  results.push_back(std::move(result));
  state.resultAdded = true;

  return std::optional<Rollback>([this, device, r, baseRequestName, subRequestName, state] {
    rollbackDevice(r, device, baseRequestName, subRequestName, state);
  });
}

void AllocationRun::rollbackDevice(const DeviceIndices& r, const DeviceWithID& device,
                                   const std::string& baseRequestName, const std::string& subRequestName,
                                   const RollbackState& state) {
  if (state.resultAdded) result_[static_cast<size_t>(r.claimIndex)].resize(state.previousNumResults);
  if (state.capacityInserted) {
    allocatingCapacity_.remove(DeviceConsumedCapacity{device.id, state.consumedCapacity});
    // remove() drops an entry that becomes empty; an earlier share still needs it as the shared marker.
    if (state.capacityEntryExisted) allocatingCapacity_.try_emplace(device.id);
  }
  if (state.deviceMarked) allocatingDevices_[device.id].erase(r.claimIndex);
  auto& constraints = constraints_[static_cast<size_t>(r.claimIndex)];
  for (size_t i = state.constraintsAdded; i-- > 0;)
    constraints[i]->remove(baseRequestName, subRequestName, *device.device, device.id);
  if (state.countersReserved) deallocateCountersForDevice(device);
}

bool AllocationRun::checkAvailableCounters(const DeviceWithID& device) {
  const Pool& pool = *device.pool;

  std::shared_ptr<const Allocator::CounterSets> available;
  {
    std::shared_lock lock(a_.countersMutex_);
    if (auto it = a_.availableCounters_.find(pool.id); it != a_.availableCounters_.end())
      available = it->second;
  }
  if (!available) {
    // Computed outside the lock; concurrent callers compute the same thing from the same inputs.
    auto computed = std::make_shared<Allocator::CounterSets>();
    for (const auto& [setName, counterSet] : pool.counterSets) {
      auto& counters = (*computed)[setName];
      for (const auto& [name, counter] : counterSet->counters) counters[name] = counter.value;
    }
    // Subtract what allocated devices (not those being allocated now) consume, on this node or any other.
    // May go negative.
    for (const auto* slices : {&pool.deviceSlicesTargetingNode, &pool.deviceSlicesNotTargetingNode}) {
      for (const auto& slice : *slices) {
        for (const auto& d : slice->spec.devices) {
          if (!isDeviceAllocated(DeviceID{slice->spec.driver, slice->spec.pool.name, d.name},
                                 a_.allocatedState_))
            continue;
          for (const auto& consumption : d.consumesCounters) {
            auto set = computed->find(consumption.counterSet);
            if (set == computed->end()) continue;
            for (const auto& [name, counter] : consumption.counters)
              if (auto it = set->second.find(name); it != set->second.end()) it->second.sub(counter.value);
          }
        }
      }
    }
    available = computed;
    std::unique_lock lock(a_.countersMutex_);
    a_.availableCounters_.insert_or_assign(pool.id, std::move(computed));
  }

  Allocator::CounterSets& consumed = consumedCounters_[pool.id];
  for (const auto& consumption : device.device->consumesCounters) {
    auto& set = consumed[consumption.counterSet];
    for (const auto& [name, counter] : consumption.counters) {
      auto [it, inserted] = set.emplace(name, counter.value);
      if (!inserted) it->second.add(counter.value);
    }
  }

  for (const auto& [setName, counters] : *available) {
    auto consumedSet = consumed.find(setName);
    for (const auto& [name, availableValue] : counters) {
      api::Quantity used;
      if (consumedSet != consumed.end())
        if (auto it = consumedSet->second.find(name); it != consumedSet->second.end()) used = it->second;
      if (availableValue.compare(used) < 0) {
        deallocateCountersForDevice(device);
        return false;
      }
    }
  }
  return true;
}

void AllocationRun::deallocateCountersForDevice(const DeviceWithID& device) {
  Allocator::CounterSets& consumed = consumedCounters_[device.pool->id];
  for (const auto& consumption : device.device->consumesCounters) {
    auto& set = consumed[consumption.counterSet];
    for (const auto& [name, counter] : consumption.counters) set[name].sub(counter.value);
  }
}

}  // namespace ks::dra::structured
