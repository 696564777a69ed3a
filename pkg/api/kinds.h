#pragma once
// What kinds.def declares, as C++: per kind its resource, scope and REST path (KindInfo), and the kinds as
// type lists for code that holds something per kind.

#include <string>
#include <string_view>

#include "pkg/api/apps.h"
#include "pkg/api/coordination.h"
#include "pkg/api/core.h"
#include "pkg/api/events.h"
#include "pkg/api/policy.h"
#include "pkg/api/resource.h"
#include "pkg/api/scheduling.h"
#include "pkg/api/storage.h"

namespace ks::api {

// Defined for every watched and stored kind of kinds.def.
template <typename T>
struct KindInfo;

#define KS_KIND_INFO(Type, resourceName, isNamespaced, isWatched) \
  template <>                                                     \
  struct KindInfo<Type> {                                         \
    static constexpr std::string_view kResource = resourceName;   \
    static constexpr bool kNamespaced = isNamespaced;             \
    static constexpr bool kWatched = isWatched;                   \
  };
#define KS_WATCHED_KIND(Type, accessor, resource, namespaced) KS_KIND_INFO(Type, resource, namespaced, true)
#define KS_STORED_KIND(Type, resource, namespaced, simulatorLoads) \
  KS_KIND_INFO(Type, resource, namespaced, false)
#include "pkg/api/kinds.def"
#undef KS_KIND_INFO

// The API group of a top-level type: "" for the core group, "storage.k8s.io", "apps", ...
template <typename T>
constexpr std::string_view groupOf() {
  constexpr std::string_view v = T::kApiVersion;
  constexpr size_t slash = v.find('/');
  return slash == std::string_view::npos ? std::string_view() : v.substr(0, slash);
}

// Whether kube-apiserver serves the kind's group/version unless told otherwise: not for beta (and alpha)
// versions, which are off by default since v1.24 (scheduling.k8s.io/v1beta1 needs
// --runtime-config=scheduling.k8s.io/v1beta1=true). Code that lists every kind skips the others unless
// their feature gate is on: on a server without the group the list is a 404 (or a 403 under least
// privilege).
template <typename T>
constexpr bool servedByDefault() {
  constexpr std::string_view v = T::kApiVersion;
  constexpr std::string_view version = v.substr(v.find('/') == std::string_view::npos ? 0 : v.find('/') + 1);
  return version.find("alpha") == std::string_view::npos && version.find("beta") == std::string_view::npos;
}

// The collection's path: "/api/v1/pods", "/apis/storage.k8s.io/v1/csinodes".
template <typename T>
std::string resourcePath() {
  std::string p = groupOf<T>().empty() ? "/api/" : "/apis/";
  p += T::kApiVersion;
  p += '/';
  p += KindInfo<T>::kResource;
  return p;
}

// "pods", "leases.coordination.k8s.io": the qualified resource of upstream's error messages.
template <typename T>
std::string qualifiedResource() {
  std::string r(KindInfo<T>::kResource);
  if (!groupOf<T>().empty()) {
    r += '.';
    r += groupOf<T>();
  }
  return r;
}

template <typename... Ts>
struct KindList {};

namespace kinds_detail {
template <typename Ignored, typename... Ts>
struct DropFirst {
  using type = KindList<Ts...>;
};
template <template <typename...> class F, typename List>
struct Apply;
template <template <typename...> class F, typename... Ts>
struct Apply<F, KindList<Ts...>> {
  using type = F<Ts...>;
};
}  // namespace kinds_detail

// The watched kinds, in kinds.def's order.
using WatchedKinds = kinds_detail::DropFirst<void
#define KS_WATCHED_KIND(Type, ...) , Type
#include "pkg/api/kinds.def"
                                             >::type;

// The watched and the stored kinds (what the in-memory API stores), in kinds.def's order.
using StoredKinds = kinds_detail::DropFirst<void
#define KS_WATCHED_KIND(Type, ...) , Type
#define KS_STORED_KIND(Type, ...) , Type
#include "pkg/api/kinds.def"
                                            >::type;

// F<Ts...> for a KindList<Ts...>: ApplyKinds<std::tuple, WatchedKinds>.
template <template <typename...> class F, typename List>
using ApplyKinds = typename kinds_detail::Apply<F, List>::type;

}  // namespace ks::api
