#pragma once
// Upstream plugins/nodevolumelimits/utils.go.

#include <string_view>

#include "pkg/api/storage.h"

namespace ks::plugins::nodevolumelimits {

// Whether the node counts volumes of the in-tree plugin `pluginName` against its CSI driver. False
// without a CSINode; otherwise true for AWS EBS, GCE PD, Azure Disk and Cinder, and for Portworx when
// CSIMigrationPortworx is on and the CSINode's migrated-plugins annotation lists it (as upstream, the
// annotation is only consulted for Portworx); false for every other plugin.
bool isCSIMigrationOn(const api::CSINode* csiNode, std::string_view pluginName,
                      bool enableCSIMigrationPortworx);

}  // namespace ks::plugins::nodevolumelimits
