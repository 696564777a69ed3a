#include "pkg/scheduler/framework/plugins/nodevolumelimits/utils.h"

#include <string>

#include "pkg/volume/csitranslation/csi_translation.h"

namespace ks::plugins::nodevolumelimits {

namespace ct = volume::csitranslation;

bool isCSIMigrationOn(const api::CSINode* csiNode, std::string_view pluginName,
                      bool enableCSIMigrationPortworx) {
  if (csiNode == nullptr || pluginName.empty()) return false;
  if (!ct::isCSIMigrationOnForPlugin(pluginName, enableCSIMigrationPortworx)) return false;
  // The GA plugins count on any node with a CSINode; Portworx (beta) only where the kubelet migrated it.
  return pluginName != ct::kPortworxVolumePluginName || ct::isPluginMigratedToCSIOnNode(pluginName, csiNode);
}

}  // namespace ks::plugins::nodevolumelimits
