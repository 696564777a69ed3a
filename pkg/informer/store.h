#pragma once
// Store<T>: the thread-safe, indexed object cache an informer keeps (client-go cache.Indexer over a
// threadSafeMap). Objects are immutable std::shared_ptr<const T>, keyed "namespace/name" (just
// "name" for cluster-scoped objects, as cache.MetaNamespaceKeyFunc). Indexers map an index name to
// a function returning the index values of an object; byIndex answers the objects with a value.
//
// Thread-safety: all methods may be called from any thread; one internal mutex, never held while
// calling out (index functions run under it, so they must not call back into the store).

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "pkg/api/meta.h"
#include "pkg/util/result.h"

namespace ks::informer {

// cache.MetaNamespaceKeyFunc: "namespace/name", or "name" when the namespace is empty.
inline std::string metaNamespaceKey(const api::ObjectMeta& m) {
  return m.namespace_.empty() ? m.name : m.namespace_ + "/" + m.name;
}

template <typename T>
std::string objectKey(const T& obj) {
  return metaNamespaceKey(obj.metadata);
}

template <typename T>
using IndexFunc = std::function<std::vector<std::string>(const T&)>;

// The index every namespaced informer usually has (cache.NamespaceIndex / MetaNamespaceIndexFunc).
inline constexpr std::string_view kNamespaceIndex = "namespace";
template <typename T>
std::vector<std::string> metaNamespaceIndexFunc(const T& obj) {
  return {obj.metadata.namespace_};
}

template <typename T>
class Store {
 public:
  using ObjectPtr = std::shared_ptr<const T>;

  // Adds an index and indexes the objects already stored. Error when the name is already in use.
  VoidResult addIndexer(const std::string& name, IndexFunc<T> fn) {
    std::lock_guard lock(mu_);
    if (indices_.contains(name)) return Error("indexer conflict: " + name);
    Index& index = indices_[name];
    index.fn = std::move(fn);
    for (const auto& [key, obj] : items_) addToIndexLocked(index, key, *obj);
    return {};
  }

  // Adds or replaces the object under its key; returns the previous object (null when new).
  ObjectPtr upsert(ObjectPtr obj) {
    std::string key = objectKey(*obj);
    std::lock_guard lock(mu_);
    ObjectPtr& slot = items_[key];
    ObjectPtr old = std::move(slot);
    slot = obj;
    for (auto& [name, index] : indices_) {
      if (old) removeFromIndexLocked(index, key, *old);
      addToIndexLocked(index, key, *obj);
    }
    return old;
  }

  // Removes the object with `key`; returns it (null when absent).
  ObjectPtr remove(const std::string& key) {
    std::lock_guard lock(mu_);
    auto it = items_.find(key);
    if (it == items_.end()) return nullptr;
    ObjectPtr old = std::move(it->second);
    items_.erase(it);
    for (auto& [name, index] : indices_) removeFromIndexLocked(index, key, *old);
    return old;
  }

  // Replaces the whole content; returns the previous content by key.
  std::map<std::string, ObjectPtr> replace(const std::vector<ObjectPtr>& objects) {
    std::map<std::string, ObjectPtr> next;
    for (const ObjectPtr& obj : objects) next[objectKey(*obj)] = obj;
    std::lock_guard lock(mu_);
    std::map<std::string, ObjectPtr> old = std::move(items_);
    items_ = std::move(next);
    for (auto& [name, index] : indices_) {
      index.values.clear();
      for (const auto& [key, obj] : items_) addToIndexLocked(index, key, *obj);
    }
    return old;
  }

  // The object with `key`, or null.
  ObjectPtr get(const std::string& key) const {
    std::lock_guard lock(mu_);
    auto it = items_.find(key);
    return it == items_.end() ? nullptr : it->second;
  }

  // All objects, in key order.
  std::vector<ObjectPtr> list() const {
    std::lock_guard lock(mu_);
    std::vector<ObjectPtr> out;
    out.reserve(items_.size());
    for (const auto& [key, obj] : items_) out.push_back(obj);
    return out;
  }

  std::vector<std::string> listKeys() const {
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    out.reserve(items_.size());
    for (const auto& [key, obj] : items_) out.push_back(key);
    return out;
  }

  size_t size() const {
    std::lock_guard lock(mu_);
    return items_.size();
  }

  // The objects whose index `indexName` holds `value`, in key order. Error for an unknown index.
  Result<std::vector<ObjectPtr>> byIndex(const std::string& indexName, const std::string& value) const {
    std::lock_guard lock(mu_);
    auto idx = indices_.find(indexName);
    if (idx == indices_.end()) return Error("Index with name " + indexName + " does not exist");
    std::vector<ObjectPtr> out;
    auto keys = idx->second.values.find(value);
    if (keys == idx->second.values.end()) return out;
    out.reserve(keys->second.size());
    for (const std::string& key : keys->second) out.push_back(items_.at(key));
    return out;
  }

  // The keys under `value` of index `indexName`, sorted. Error for an unknown index.
  Result<std::vector<std::string>> indexKeys(const std::string& indexName, const std::string& value) const {
    std::lock_guard lock(mu_);
    auto idx = indices_.find(indexName);
    if (idx == indices_.end()) return Error("Index with name " + indexName + " does not exist");
    auto keys = idx->second.values.find(value);
    if (keys == idx->second.values.end()) return std::vector<std::string>{};
    return std::vector<std::string>(keys->second.begin(), keys->second.end());
  }

 private:
  struct Index {
    IndexFunc<T> fn;
    std::unordered_map<std::string, std::set<std::string>> values;  // index value -> keys
  };

  static void addToIndexLocked(Index& index, const std::string& key, const T& obj) {
    for (std::string& v : index.fn(obj)) index.values[std::move(v)].insert(key);
  }

  static void removeFromIndexLocked(Index& index, const std::string& key, const T& obj) {
    for (const std::string& v : index.fn(obj)) {
      auto it = index.values.find(v);
      if (it == index.values.end()) continue;
      it->second.erase(key);
      if (it->second.empty()) index.values.erase(it);
    }
  }

  mutable std::mutex mu_;
  std::map<std::string, ObjectPtr> items_;             // guarded by mu_
  std::map<std::string, Index, std::less<>> indices_;  // guarded by mu_
};

}  // namespace ks::informer
