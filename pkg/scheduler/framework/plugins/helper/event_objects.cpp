#include "pkg/scheduler/framework/plugins/helper/event_objects.h"

namespace ks::plugins::helper {

std::string eventObjectTypeName(const framework::EventObject& obj) {
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::monostate>) {
          return "<nil>";
        } else {
          using T = std::remove_const_t<typename V::element_type>;
          // PodGroup is scheduling.k8s.io/v1beta1's; every other event object is a v1 type.
          if constexpr (std::is_same_v<T, api::PodGroup>) return "*v1beta1." + std::string(T::kKind);
          return "*v1." + std::string(T::kKind);
        }
      },
      obj);
}

}  // namespace ks::plugins::helper
