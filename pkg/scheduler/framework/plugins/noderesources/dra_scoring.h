#pragma once
// Scoring extended resources backed by a DeviceClass (DRAExtendedResource; upstream v1.37.2
// resource_allocation.go getDRAPreScoredParams and calculateDRAExtendedResourceAllocatableRequest): on a
// node that does not advertise such a resource, NodeResourcesFit's and BalancedAllocation's scorers take
// its allocatable as the number of the node's devices that match the class, and its allocated as how many
// of those claims already use.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/resource.h"
#include "pkg/dra/cel/compile.h"
#include "pkg/dra/structured/types.h"
#include "pkg/scheduler/framework/dra_manager.h"
#include "pkg/util/result.h"

namespace ks::plugins::noderesources {

// Which devices of a slice match a class's selectors, kept across cycles: one entry per (class, slice) UID
// pair, valid for the resourceVersions it was computed at (upstream keeps matches by expression, driver,
// pool and device name for the plugin's lifetime, and so misses attribute changes). Thread-safe.
class DeviceClassMatchCache {
 public:
  // Per device of the slice: 1 matches, 0 does not, -1 a selector failed (compile or runtime error).
  using Matches = std::vector<int8_t>;

  // The class's matches for each slice, null where none are cached (or the class or slice changed since).
  std::vector<std::shared_ptr<const Matches>> get(const api::DeviceClass& deviceClass,
                                                  std::span<const framework::ResourceSlicePtr> slices) const;
  void put(const api::DeviceClass& deviceClass, const api::ResourceSlice& slice,
           std::shared_ptr<const Matches> matches);
  // Drops the entries of slices not in `live` once there are more than twice as many entries as
  // `live.size() * classes` (plus a few).
  void prune(std::span<const framework::ResourceSlicePtr> live, std::size_t classes);
  std::size_t sizeForTest() const;

 private:
  struct Entry {
    std::string classVersion;
    std::string sliceVersion;
    std::shared_ptr<const Matches> matches;
  };
  using SliceEntries = std::map<std::string, Entry, std::less<>>;  // by slice UID
  mutable std::mutex mu_;
  std::map<std::string, SliceEntries, std::less<>> entries_;  // by class UID
};

// What the scorers read of DRA in one scheduling cycle (upstream draPreScoreState): the allocated devices,
// the slices (with DeviceTaintRules applied; taints do not matter here) indexed by the node they name, and
// for each scored resource the class that backs it, with its selectors compiled and each slice's matches
// taken from the cache (or computed the first time a node needs them). Immutable but for those lazily
// computed matches; the cycle state's clones share it.
class DRAPreScoreState {
 public:
  // upstream getDRAPreScoredParams: null when no resource in `resourceNames` is an extended resource name
  // (or a deviceclass.resource.kubernetes.io/ one) that `classes` maps to a class, or when there is no
  // manager; Error with the manager's message when gathering the allocated devices or listing the slices
  // fails (a concurrent modification is not retried, as upstream).
  static Result<std::shared_ptr<const DRAPreScoreState>> gather(
      framework::SharedDRAManager* draManager, const framework::DeviceClassResolver* classes,
      std::span<const std::string> resourceNames, cel::Cache& celCache,
      std::shared_ptr<DeviceClassMatchCache> matchCache);

  DRAPreScoreState(const DRAPreScoreState&) = delete;
  DRAPreScoreState& operator=(const DRAPreScoreState&) = delete;

  // (allocatable, allocated) of resource i (of gather's resourceNames) on `node`: the devices available on
  // the node that match the resource's class, and how many of them are allocated (whole, shared or with
  // consumed capacity). (0, 0) when no class backs the resource, and when a node selector does not parse or
  // a class selector fails on one of the node's devices (upstream logs that error). Thread-safe.
  std::pair<int64_t, int64_t> allocatableRequest(const api::Node& node, std::size_t i) const;

 private:
  // One slice's matches for one class: `cached` is set by gather() from the cache, else `computed` once.
  struct SliceMatches {
    std::shared_ptr<const DeviceClassMatchCache::Matches> cached;
    std::once_flag once;
    std::shared_ptr<const DeviceClassMatchCache::Matches> computed;
  };
  struct BackingClass {
    std::shared_ptr<const api::DeviceClass> deviceClass;  // null: not backed by DRA
    // The class's selectors compiled, in order (null for a selector without CEL, which is skipped).
    std::vector<std::shared_ptr<const cel::CompilationResult>> selectors;
    std::unique_ptr<SliceMatches[]> matches;  // by slice index; only with selectors
  };
  using DeviceKey = std::tuple<std::string_view, std::string_view, std::string_view>;

  DRAPreScoreState() = default;
  // The class's matches for slice j (upstream deviceMatchesClass over the slice's devices).
  const DeviceClassMatchCache::Matches& sliceMatches(const BackingClass& backing, std::size_t j) const;
  DeviceClassMatchCache::Matches computeMatches(const BackingClass& backing, const api::ResourceSlice& slice) const;
  // Counts the matching devices of slice j that are available on `node` (upstream
  // calculateDRAResourceTotals' loop body); false on an error.
  bool countSlice(const api::Node& node, const BackingClass& backing, std::size_t j, int64_t& capacity,
                  int64_t& allocated) const;

  dra::structured::AllocatedState allocatedState_;
  // Every device isDeviceAllocated() is true for, viewing into allocatedState_.
  std::set<DeviceKey> inUse_;
  std::vector<framework::ResourceSlicePtr> slices_;
  // Indices of the slices with a node name (and no allNodes or per-device selection), by that name; the
  // others.
  std::unordered_map<std::string_view, std::vector<uint32_t>> slicesByNodeName_;
  std::vector<uint32_t> otherSlices_;
  std::vector<BackingClass> backing_;  // by resource
  std::shared_ptr<DeviceClassMatchCache> matchCache_;
};

}  // namespace ks::plugins::noderesources
