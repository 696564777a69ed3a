#pragma once
// The assume cache (upstream pkg/scheduler/util/assumecache): an informer's objects, over which the
// scheduler may "assume" a newer version (a PV bound to a claim, a ResourceClaim with its allocation)
// before the API write lands, so that the next pods see it. Per object it keeps the informer's version
// (apiObj) and the latest one (latestObj). An informer event replaces both, but only when its
// resourceVersion is newer than the latest: an assumed object stays until the API catches up. Restore
// drops the assumption. VolumeBinding keeps PVs and PVCs in it, DynamicResources ResourceClaims.
//
// Event handlers (as upstream's AddEventHandler) see the cache's view: an add / update / delete for every
// change of the latest version, assume and restore included, delivered in order, one at a time, outside
// the cache's lock. A handler may read the cache but must not modify it (that would wait on itself).
//
// Thread-safe: informer events, the scheduling thread, Filter workers and binding threads use it.

#include <charconv>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/informer/shared_informer.h"
#include "pkg/util/result.h"

namespace ks::assumecache {

// A resourceVersion as the integer the apiserver (etcd) makes of it; nullopt when it is not one.
inline std::optional<int64_t> parseResourceVersion(std::string_view rv) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), v);
  if (ec != std::errc() || end != rv.data() + rv.size()) return std::nullopt;
  return v;
}

template <typename T>
class AssumeCache {
 public:
  using ObjectPtr = std::shared_ptr<const T>;
  // Maps an object to its index value (e.g. a PV's storage class); empty: no index. Computed on the
  // informer's version: an assumption must not change it (a PV's claimRef does not change its class).
  using IndexFn = std::function<std::string(const T&)>;

  // `description` names the kind in errors ("v1.PersistentVolume").
  AssumeCache(std::string description, IndexFn index = {})
      : description_(std::move(description)), index_(std::move(index)) {}

  // Feeds the cache from `informer` (call before the informer starts).
  void watch(informer::SharedInformer<T>& informer) {
    informer::EventHandlerFuncs<T> h;
    h.onAdd = [this](const ObjectPtr& obj, bool) { add(obj); };
    h.onUpdate = [this](const ObjectPtr&, const ObjectPtr& obj) { add(obj); };
    h.onDelete = [this](const informer::DeletedObject<T>& d) { remove(d.key); };
    informer.addEventHandler(std::move(h));
  }

  // Registers `handler` (its filter fields are ignored) and replays the current objects to it as adds
  // (isInInitialList true), as upstream.
  void addEventHandler(informer::EventHandlerFuncs<T> handler) {
    {
      std::unique_lock lock(mu_);
      auto h = std::make_shared<const informer::EventHandlerFuncs<T>>(std::move(handler));
      handlers_.push_back(h);
      for (const auto& [key, e] : objects_) {
        if (h->onAdd) pending_.push_back([h, obj = e.latest] { h->onAdd(obj, true); });
      }
    }
    emitEvents();
  }

  // An informer add / update: stored unless not newer than what the cache holds.
  void add(const ObjectPtr& obj) {
    const std::string key = informer::objectKey(*obj);
    {
      std::unique_lock lock(mu_);
      ObjectPtr oldObj;
      if (auto it = objects_.find(key); it != objects_.end()) {
        auto newVersion = version(key, *obj);
        auto storedVersion = version(key, *it->second.latest);
        if (!newVersion.ok() || !storedVersion.ok() || *newVersion <= *storedVersion) return;
        oldObj = it->second.latest;
        unindex(key, it->second.indexValue);
      }
      std::string indexValue = index_ ? index_(*obj) : std::string();
      if (index_) byIndex_[indexValue].insert(key);
      objects_[key] = Entry{obj, obj, std::move(indexValue)};
      pushEvent(oldObj, obj);
    }
    emitEvents();
  }

  void remove(const std::string& key) {
    {
      std::unique_lock lock(mu_);
      auto it = objects_.find(key);
      if (it == objects_.end()) return;
      ObjectPtr oldObj = it->second.latest;
      unindex(key, it->second.indexValue);
      objects_.erase(it);
      pushEvent(oldObj, nullptr);
    }
    emitEvents();
  }

  // The latest version (assumed or from the API); an error "could not find <description> \"key\"".
  Result<ObjectPtr> get(const std::string& key) const { return lookup(key, &Entry::latest); }
  // The version the informer last delivered.
  Result<ObjectPtr> getAPIObj(const std::string& key) const { return lookup(key, &Entry::api); }

  // The latest versions of the objects whose index value is `indexValue` (all objects without index).
  std::vector<ObjectPtr> list(std::string_view indexValue = {}) const {
    std::shared_lock lock(mu_);
    std::vector<ObjectPtr> out;
    if (!index_) {
      for (const auto& [key, e] : objects_) out.push_back(e.latest);
      return out;
    }
    auto keys = byIndex_.find(indexValue);
    if (keys == byIndex_.end()) return out;
    for (const std::string& key : keys->second) out.push_back(objects_.at(key).latest);
    return out;
  }

  // Replaces the latest version by `obj`, which must be at least as new as the stored one.
  Result<void> assume(ObjectPtr obj) {
    const std::string key = informer::objectKey(*obj);
    {
      std::unique_lock lock(mu_);
      auto it = objects_.find(key);
      if (it == objects_.end()) return notFound(key);
      auto newVersion = version(key, *obj);
      if (!newVersion.ok()) return newVersion.error();
      auto storedVersion = version(key, *it->second.latest);
      if (!storedVersion.ok()) return storedVersion.error();
      if (*newVersion < *storedVersion) {
        return Error(description_ + " \"" + key + "\" is out of sync (stored: " +
                     std::to_string(*storedVersion) + ", assume: " + std::to_string(*newVersion) + ")");
      }
      pushEvent(it->second.latest, obj);
      it->second.latest = std::move(obj);
    }
    emitEvents();
    return {};
  }

  // Drops the assumption on `key`: the latest version is the API's again.
  void restore(const std::string& key) {
    {
      std::unique_lock lock(mu_);
      auto it = objects_.find(key);
      if (it == objects_.end() || it->second.latest == it->second.api) return;
      pushEvent(it->second.latest, it->second.api);
      it->second.latest = it->second.api;
    }
    emitEvents();
  }

 private:
  struct Entry {
    ObjectPtr latest;
    ObjectPtr api;
    std::string indexValue;
  };

  // Queues the event for every handler; called with mu_ held. A null old object is an add, a null new
  // one a delete.
  void pushEvent(const ObjectPtr& oldObj, const ObjectPtr& newObj) {
    for (const auto& h : handlers_) {
      if (!oldObj) {
        if (h->onAdd) pending_.push_back([h, newObj] { h->onAdd(newObj, false); });
      } else if (!newObj) {
        if (h->onDelete) {
          pending_.push_back([h, oldObj] {
            h->onDelete(informer::DeletedObject<T>{oldObj, false, informer::objectKey(*oldObj)});
          });
        }
      } else if (h->onUpdate) {
        pending_.push_back([h, oldObj, newObj] { h->onUpdate(oldObj, newObj); });
      }
    }
  }

  // Delivers the queued events in order. One thread delivers at a time (emitMu_); the others wait for it,
  // then deliver what is left.
  void emitEvents() {
    std::lock_guard emitting(emitMu_);
    for (;;) {
      std::function<void()> deliver;
      {
        std::unique_lock lock(mu_);
        if (pending_.empty()) return;
        deliver = std::move(pending_.front());
        pending_.pop_front();
      }
      deliver();
    }
  }

  void unindex(const std::string& key, const std::string& indexValue) {
    if (!index_) return;
    auto it = byIndex_.find(indexValue);
    if (it == byIndex_.end()) return;
    it->second.erase(key);
    if (it->second.empty()) byIndex_.erase(it);
  }

  Error notFound(const std::string& key) const {
    return Error("could not find " + description_ + " \"" + key + "\"");
  }

  Result<ObjectPtr> lookup(const std::string& key, ObjectPtr Entry::*which) const {
    std::shared_lock lock(mu_);
    auto it = objects_.find(key);
    if (it == objects_.end()) return notFound(key);
    return it->second.*which;
  }

  Result<int64_t> version(const std::string& key, const T& obj) const {
    const std::string& rv = obj.metadata.resourceVersion;
    if (auto v = parseResourceVersion(rv)) return *v;
    return Error("error parsing ResourceVersion \"" + rv + "\" for " + description_ + " \"" + key + "\"");
  }

  const std::string description_;
  const IndexFn index_;
  mutable std::shared_mutex mu_;
  std::map<std::string, Entry> objects_;
  // Keys by index value (with an index function only).
  std::map<std::string, std::set<std::string>, std::less<>> byIndex_;
  std::vector<std::shared_ptr<const informer::EventHandlerFuncs<T>>> handlers_;
  std::deque<std::function<void()>> pending_;  // guarded by mu_
  std::mutex emitMu_;
};

}  // namespace ks::assumecache
