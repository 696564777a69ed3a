#include "pkg/scheduler/framework/plugins/nodevolumelimits/utils.h"

#include <string>

#include "pkg/util/strings.h"
#include "pkg/volume/csitranslation/csi_translation.h"
#include "pkg/volume/volume_helpers.h"

namespace ks::plugins::nodevolumelimits {

namespace ct = volume::csitranslation;

bool isCSIMigrationOn(const api::CSINode* csiNode, std::string_view pluginName,
                      bool enableCSIMigrationPortworx) {
  if (csiNode == nullptr || pluginName.empty()) return false;
  // Migration of these plugins is GA (always on), so any node with a CSINode counts them against
  // their CSI driver without looking at its annotation.
  if (pluginName == ct::kAWSEBSInTreePluginName || pluginName == ct::kGCEPDInTreePluginName ||
      pluginName == ct::kAzureDiskInTreePluginName || pluginName == ct::kCinderInTreePluginName) {
    return true;
  }
  // Portworx (beta) counts only where the kubelet migrated it; Azure File and vSphere never count here.
  if (pluginName != ct::kPortworxVolumePluginName || !enableCSIMigrationPortworx) return false;
  // The kubelet lists the plugins it migrated on the node.
  const auto& annotations = csiNode->metadata.annotations;
  auto it = annotations.find(std::string(volume::kMigratedPluginsAnnotation));
  if (it == annotations.end() || it->second.empty()) return false;
  for (std::string_view migrated : split(it->second, ',')) {
    if (migrated == pluginName) return true;
  }
  return false;
}

}  // namespace ks::plugins::nodevolumelimits
