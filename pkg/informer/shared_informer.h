#pragma once
// SharedInformer<T>: a Reflector feeding a Store, with event handlers notified in order from one
// dispatch thread (client-go's sharedIndexInformer + processorListener, with a single listener thread).
//
//   reflector thread:  sink call -> under mu_: update the store, queue the notification(s)
//   dispatch thread:   pop notifications in order -> call handlers (no informer lock held)
//
// Notifications: onAdd(obj, isInInitialList) for new objects (isInInitialList for the first list and
// for the replay a late handler gets); onUpdate(old, new) for changed ones; onDelete(DeletedObject)
// for deleted ones. On a relist, objects that vanished are delivered as deletes with a tombstone
// (finalStateUnknown = true, the last known object; client-go's DeletedFinalStateUnknown); objects
// whose resourceVersion changed as updates; new ones as adds. The store is updated before the
// handlers hear of it (as upstream), so a handler may find the store already ahead of it.
// hasSynced() turns true once the handlers have been given the whole first list.
//
// Lock order: SharedInformer::mu_ -> Store's internal mutex. Handlers run on the dispatch thread with no
// lock held; they may read the store and add handlers, but must not call stop() (it joins that thread).

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "pkg/client/client.h"
#include "pkg/informer/reflector.h"
#include "pkg/informer/store.h"

namespace ks::informer {

// What onDelete receives: the deleted object, or (finalStateUnknown) a tombstone holding the last
// state the informer knew, when the delete was only noticed by a relist.
template <typename T>
struct DeletedObject {
  std::shared_ptr<const T> object;
  bool finalStateUnknown = false;
  std::string key;
};

// Handler callbacks; any may be empty. With `filter` set this is a FilteringResourceEventHandler:
// an update whose old object passed and new does not becomes onDelete(old), the reverse onAdd(new).
template <typename T>
struct EventHandlerFuncs {
  using ObjectPtr = std::shared_ptr<const T>;
  std::function<bool(const T&)> filter;
  // With `filter` set: decides for a delete whose final state is unknown (a tombstone after a relist; its
  // object is the last state seen, possibly stale). Unset: `filter` decides on that stale object.
  std::function<bool(const T&)> filterFinalStateUnknown;
  std::function<void(const ObjectPtr& obj, bool isInInitialList)> onAdd;
  std::function<void(const ObjectPtr& oldObj, const ObjectPtr& newObj)> onUpdate;
  std::function<void(const DeletedObject<T>& deleted)> onDelete;
};

// The kind-independent face of an informer (the factory starts, stops and waits on these).
class InformerBase {
 public:
  virtual ~InformerBase() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual bool hasSynced() const = 0;
  // Blocks until synced or `timeout`; returns hasSynced().
  virtual bool waitForSync(std::chrono::milliseconds timeout) const = 0;
};

template <typename T>
class SharedInformer final : public InformerBase, private ReflectorSink<T> {
 public:
  using ObjectPtr = std::shared_ptr<const T>;

  SharedInformer(client::ListWatcher<T>& lw, ReflectorOptions options)
      : reflector_(lw, *this, std::move(options)) {}
  ~SharedInformer() override { stop(); }
  SharedInformer(const SharedInformer&) = delete;
  SharedInformer& operator=(const SharedInformer&) = delete;

  // The cache. Indexers may be added at any time (best before start()).
  Store<T>& store() { return store_; }
  const Store<T>& store() const { return store_; }

  // Registers a handler. Before start() it hears the first list as adds (isInInitialList = true);
  // afterwards it first hears the current store content as adds (isInInitialList = true), then the
  // live notifications. Returns the handler's index. Any thread.
  size_t addEventHandler(EventHandlerFuncs<T> handler) {
    std::lock_guard lock(mu_);
    handlers_.push_back(std::make_shared<const EventHandlerFuncs<T>>(std::move(handler)));
    const size_t id = handlers_.size() - 1;
    if (replaced_) {
      for (ObjectPtr& obj : store_.list()) {
        Notification n;
        n.type = NotificationType::Add;
        n.newObj = std::move(obj);
        n.initial = true;
        n.only = id;
        queue_.push_back(std::move(n));
      }
      cv_.notify_all();
    }
    return id;
  }

  // Starts the dispatch thread and the reflector. Once only; a call after stop() does nothing.
  void start() override {
    std::lock_guard lock(mu_);
    if (started_) return;
    started_ = true;
    dispatcher_ = std::jthread([this](std::stop_token stop) { dispatchLoop(stop); });
    reflector_.start();
  }

  // Stops the reflector, then the dispatcher (undelivered notifications are dropped); joins both.
  void stop() override {
    reflector_.stop();
    std::jthread t;
    {
      std::lock_guard lock(mu_);
      t = std::move(dispatcher_);
    }
    if (t.joinable()) {
      t.request_stop();
      t.join();
    }
  }

  bool hasSynced() const override {
    std::lock_guard lock(mu_);
    return synced_;
  }

  bool waitForSync(std::chrono::milliseconds timeout) const override {
    std::unique_lock lock(mu_);
    return syncedCv_.wait_for(lock, timeout, [this] { return synced_; });
  }

  std::string lastSyncResourceVersion() const { return reflector_.lastSyncResourceVersion(); }
  const Reflector<T>& reflector() const { return reflector_; }

 private:
  enum class NotificationType { Add, Update, Delete, SyncMarker };

  struct Notification {
    NotificationType type = NotificationType::Add;
    ObjectPtr oldObj;
    ObjectPtr newObj;
    DeletedObject<T> deleted;
    bool initial = false;
    size_t handlerLimit = 0;     // delivered to handlers [0, handlerLimit) ...
    std::optional<size_t> only;  // ... or to this one only (a late handler's replay)
  };

  // --- ReflectorSink, on the reflector thread ---

  void replace(std::vector<ObjectPtr>&& objects, const std::string& /*resourceVersion*/) override {
    std::lock_guard lock(mu_);
    std::map<std::string, ObjectPtr> old = store_.replace(objects);
    const bool initial = !replaced_;
    for (ObjectPtr& obj : objects) {
      auto it = old.find(objectKey(*obj));
      if (it == old.end()) {
        enqueueLocked(NotificationType::Add, nullptr, std::move(obj), initial);
        continue;
      }
      if (it->second->metadata.resourceVersion != obj->metadata.resourceVersion) {
        enqueueLocked(NotificationType::Update, std::move(it->second), std::move(obj), false);
      }
      old.erase(it);
    }
    for (auto& [key, obj] : old) {
      Notification n;
      n.type = NotificationType::Delete;
      n.deleted = DeletedObject<T>{std::move(obj), true, key};
      n.handlerLimit = handlers_.size();
      queue_.push_back(std::move(n));
    }
    if (initial) {
      replaced_ = true;
      Notification n;
      n.type = NotificationType::SyncMarker;
      queue_.push_back(std::move(n));
    }
    cv_.notify_all();
  }

  void add(T&& obj) override { upsert(std::move(obj)); }
  void update(T&& obj) override { upsert(std::move(obj)); }

  void remove(T&& obj) override {
    auto ptr = std::make_shared<const T>(std::move(obj));
    std::string key = objectKey(*ptr);
    std::lock_guard lock(mu_);
    store_.remove(key);
    Notification n;
    n.type = NotificationType::Delete;
    n.deleted = DeletedObject<T>{std::move(ptr), false, std::move(key)};
    n.handlerLimit = handlers_.size();
    queue_.push_back(std::move(n));
    cv_.notify_all();
  }

  void upsert(T&& obj) {
    auto ptr = std::make_shared<const T>(std::move(obj));
    std::lock_guard lock(mu_);
    ObjectPtr old = store_.upsert(ptr);
    if (old) {
      enqueueLocked(NotificationType::Update, std::move(old), std::move(ptr), false);
    } else {
      enqueueLocked(NotificationType::Add, nullptr, std::move(ptr), false);
    }
    cv_.notify_all();
  }

  void enqueueLocked(NotificationType type, ObjectPtr oldObj, ObjectPtr newObj, bool initial) {
    Notification n;
    n.type = type;
    n.oldObj = std::move(oldObj);
    n.newObj = std::move(newObj);
    n.initial = initial;
    n.handlerLimit = handlers_.size();
    queue_.push_back(std::move(n));
  }

  // --- Dispatch thread ---

  void dispatchLoop(std::stop_token stop) {
    std::vector<std::shared_ptr<const EventHandlerFuncs<T>>> handlers;
    for (;;) {
      Notification n;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, stop, [this] { return !queue_.empty(); });
        if (stop.stop_requested()) return;
        n = std::move(queue_.front());
        queue_.pop_front();
        if (handlers.size() != handlers_.size()) handlers = handlers_;
      }
      if (n.type == NotificationType::SyncMarker) {
        std::lock_guard lock(mu_);
        synced_ = true;
        syncedCv_.notify_all();
        continue;
      }
      if (n.only) {
        deliver(*handlers[*n.only], n);
        continue;
      }
      for (size_t i = 0; i < n.handlerLimit; ++i) deliver(*handlers[i], n);
    }
  }

  static void deliver(const EventHandlerFuncs<T>& h, const Notification& n) {
    switch (n.type) {
      case NotificationType::Add:
        if (h.filter && !h.filter(*n.newObj)) return;
        if (h.onAdd) h.onAdd(n.newObj, n.initial);
        return;
      case NotificationType::Update: {
        if (!h.filter) {
          if (h.onUpdate) h.onUpdate(n.oldObj, n.newObj);
          return;
        }
        const bool older = h.filter(*n.oldObj);
        const bool newer = h.filter(*n.newObj);
        if (older && newer) {
          if (h.onUpdate) h.onUpdate(n.oldObj, n.newObj);
        } else if (newer) {
          if (h.onAdd) h.onAdd(n.newObj, false);
        } else if (older) {
          if (h.onDelete) h.onDelete(DeletedObject<T>{n.oldObj, false, objectKey(*n.oldObj)});
        }
        return;
      }
      case NotificationType::Delete: {
        const auto& filter =
            n.deleted.finalStateUnknown && h.filterFinalStateUnknown ? h.filterFinalStateUnknown : h.filter;
        if (filter && !filter(*n.deleted.object)) return;
        if (h.onDelete) h.onDelete(n.deleted);
        return;
      }
      case NotificationType::SyncMarker:
        return;
    }
  }

  Store<T> store_;
  Reflector<T> reflector_;

  mutable std::mutex mu_;
  std::condition_variable_any cv_;                                     // queue_ became non-empty
  mutable std::condition_variable syncedCv_;                           // synced_ became true
  std::vector<std::shared_ptr<const EventHandlerFuncs<T>>> handlers_;  // guarded by mu_
  std::deque<Notification> queue_;                                     // guarded by mu_
  bool replaced_ = false;    // the first list reached the store; guarded by mu_
  bool synced_ = false;      // the first list reached the handlers; guarded by mu_
  bool started_ = false;     // guarded by mu_
  std::jthread dispatcher_;  // guarded by mu_
};

}  // namespace ks::informer
