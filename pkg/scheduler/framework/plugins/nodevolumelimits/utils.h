#pragma once
// Upstream plugins/nodevolumelimits/utils.go.

#include <string_view>

#include "pkg/api/storage.h"

namespace ks::plugins::nodevolumelimits {

// Whether the node counts volumes of the in-tree plugin `pluginName` against its CSI driver. False
// without a CSINode; otherwise true for AWS EBS, GCE PD, Azure Disk, Cinder and Portworx (v1.37: the
// CSIMigrationPortworx gate is gone and the node's migrated-plugins annotation is no longer read); false
// for every other plugin.
bool isCSIMigrationOn(const api::CSINode* csiNode, std::string_view pluginName);

}  // namespace ks::plugins::nodevolumelimits
