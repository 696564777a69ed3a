#pragma once
// Typed access to the objects of a cluster event, for queueing hints (upstream pkg/scheduler/util.As).

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "pkg/scheduler/framework/events.h"
#include "pkg/util/result.h"

namespace ks::plugins::helper {

// Go's %T of an event object as upstream would print it ("*v1.Node", "<nil>").
std::string eventObjectTypeName(const framework::EventObject& obj);

// The old and new objects of an event as T, each nullptr when absent (Add has no old object, Delete no
// new one). An object of another type is an error "expected *v1.<T>, but got <type>", which hints
// answer with Queue (upstream util.As).
template <class T>
Result<std::pair<const T*, const T*>> asTyped(const framework::EventObject& oldObj,
                                              const framework::EventObject& newObj) {
  using Ptr = std::shared_ptr<const T>;
  auto one = [](const framework::EventObject& o, const T*& out) -> bool {
    out = nullptr;
    if (std::holds_alternative<std::monostate>(o)) return true;
    const Ptr* p = std::get_if<Ptr>(&o);
    if (p == nullptr) return false;
    out = p->get();
    return true;
  };
  const T* newTyped = nullptr;
  const T* oldTyped = nullptr;
  // PodGroup is scheduling.k8s.io/v1beta1's; every other event object is a v1 type.
  const std::string want = (std::is_same_v<T, api::PodGroup> ? "*v1beta1." : "*v1.") + std::string(T::kKind);
  if (!one(newObj, newTyped)) return Error("expected " + want + ", but got " + eventObjectTypeName(newObj));
  if (!one(oldObj, oldTyped)) return Error("expected " + want + ", but got " + eventObjectTypeName(oldObj));
  return std::make_pair(oldTyped, newTyped);
}

// A queueing hint that calls the const member `fn` of `plugin` (plugins outlive the queue's hints).
template <class P>
framework::QueueingHintFn bindHint(
    const P* plugin, Result<framework::QueueingHint> (P::*fn)(const api::Pod&, const framework::EventObject&,
                                                              const framework::EventObject&) const) {
  return [plugin, fn](const api::Pod& pod, const framework::EventObject& oldObj,
                      const framework::EventObject& newObj) { return (plugin->*fn)(pod, oldObj, newObj); };
}

}  // namespace ks::plugins::helper
