#include "pkg/scheduler/framework/plugins/nodevolumelimits/utils.h"

#include "pkg/volume/csitranslation/csi_translation.h"

namespace ks::plugins::nodevolumelimits {

namespace ct = volume::csitranslation;

bool isCSIMigrationOn(const api::CSINode* csiNode, std::string_view pluginName) {
  if (csiNode == nullptr || pluginName.empty()) return false;
  // Every migration this plugin counts is GA (Portworx since v1.37's removal of CSIMigrationPortworx).
  return pluginName == ct::kAWSEBSInTreePluginName || pluginName == ct::kPortworxVolumePluginName ||
         pluginName == ct::kGCEPDInTreePluginName || pluginName == ct::kAzureDiskInTreePluginName ||
         pluginName == ct::kCinderInTreePluginName;
}

}  // namespace ks::plugins::nodevolumelimits
