// Upstream k8s.io/csi-translation-lib v0.34.4: translate.go and plugins/{in_tree_volume,gce_pd,aws_ebs,
// azure_disk,azure_file,openstack_cinder,vsphere_volume,portworx}.go, in-tree -> CSI direction only.
#include "pkg/volume/csitranslation/csi_translation.h"

#include <array>
#include <initializer_list>
#include <optional>
#include <set>
#include <vector>

#include "pkg/util/strings.h"
#include "pkg/volume/volume_helpers.h"

namespace ks::volume::csitranslation {

namespace {

constexpr std::string_view kLabelTopologyZone = "topology.kubernetes.io/zone";
constexpr std::string_view kLabelTopologyRegion = "topology.kubernetes.io/region";
constexpr std::string_view kLabelFailureDomainBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kLabelFailureDomainBetaRegion = "failure-domain.beta.kubernetes.io/region";
// Separates the zones of a multi-zone (regional) volume in its zone label.
constexpr std::string_view kLabelMultiZoneDelimiter = "__";

constexpr std::string_view kReadWriteOnce = "ReadWriteOnce";
constexpr std::string_view kReadOnlyMany = "ReadOnlyMany";
constexpr std::string_view kReadWriteMany = "ReadWriteMany";

constexpr std::string_view kGCEUnspecified = "UNSPECIFIED";
constexpr std::string_view kAzureManagedDisk = "Managed";
constexpr std::string_view kAzureFileResourceGroupAnnotation = "kubernetes.io/azure-file-resource-group";
constexpr std::string_view kAzureFileDefaultSecretNamespace = "default";

// strings.Split with a string separator: "" gives {""}.
std::vector<std::string> splitString(std::string_view s, std::string_view sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.emplace_back(s.substr(start));
      return out;
    }
    out.emplace_back(s.substr(start, pos - start));
    start = pos + sep.size();
  }
}

std::string concat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out += p;
  return out;
}

// How fmt prints a sets.String (a map with empty struct values): "map[a:{} b:{}]", keys sorted.
std::string formatStringSet(const std::set<std::string>& s) {
  std::string out = "map[";
  bool first = true;
  for (const auto& v : s) {
    if (!first) out += ' ';
    first = false;
    out += v;
    out += ":{}";
  }
  return out + "]";
}

// strings.EqualFold for ASCII.
bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

bool hasTerms(const api::PersistentVolume& pv) {
  const auto& na = pv.spec.nodeAffinity;
  return na && na->required && !na->required->nodeSelectorTerms.empty();
}

// ---- Topology (plugins/in_tree_volume.go) ----

// Renames `oldKey` to `newKey` in every term's matchExpressions. An expression already using `newKey`
// is left alone, so a term may end up with two expressions of the same key.
void replaceTopology(api::PersistentVolume& pv, std::string_view oldKey, std::string_view newKey) {
  if (!hasTerms(pv)) return;
  for (auto& term : pv.spec.nodeAffinity->required->nodeSelectorTerms) {
    for (auto& r : term.matchExpressions) {
      if (r.key == oldKey) r.key = newKey;
    }
  }
}

// The distinct values of `key` over all terms, sorted. Several zones of one PV are ORed, which
// assumes no plugin needs "zone1 AND zone2".
std::vector<std::string> getTopologyValues(const api::PersistentVolume& pv, std::string_view key) {
  if (!hasTerms(pv)) return {};
  std::set<std::string> values;
  for (const auto& term : pv.spec.nodeAffinity->required->nodeSelectorTerms) {
    for (const auto& r : term.matchExpressions) {
      if (r.key == key) values.insert(r.values.begin(), r.values.end());
    }
  }
  return {values.begin(), values.end()};
}

bool topologyKeyExists(std::string_view key, const std::optional<api::VolumeNodeAffinity>& na) {
  if (!na || !na->required) return false;
  for (const auto& term : na->required->nodeSelectorTerms) {
    for (const auto& r : term.matchExpressions) {
      if (r.key == key) return true;
    }
  }
  return false;
}

// Appends "key In zones" (trimmed, deduplicated, sorted) to every term, creating one term when there
// is none. False, leaving the PV alone, when no zone is left after trimming.
bool addTopology(api::PersistentVolume& pv, std::string_view key, const std::vector<std::string>& zones) {
  std::set<std::string> filtered;
  for (const auto& z : zones) {
    std::string_view t = trim(z);
    if (!t.empty()) filtered.emplace(t);
  }
  if (filtered.empty()) return false;
  auto& na = pv.spec.nodeAffinity;
  if (!na) na.emplace();
  if (!na->required) na->required.emplace();
  auto& terms = na->required->nodeSelectorTerms;
  if (terms.empty()) terms.resize(1);
  const api::NodeSelectorRequirement topology{std::string(key), "In", {filtered.begin(), filtered.end()}};
  for (auto& term : terms) term.matchExpressions.push_back(topology);
  return true;
}

// Which generation of zone/region labels the PV uses: its node affinity decides first, then its labels;
// GA when neither mentions a zone.
std::pair<std::string_view, std::string_view> getTopologyLabel(const api::PersistentVolume& pv) {
  if (topologyKeyExists(kLabelTopologyZone, pv.spec.nodeAffinity))
    return {kLabelTopologyZone, kLabelTopologyRegion};
  if (topologyKeyExists(kLabelFailureDomainBetaZone, pv.spec.nodeAffinity)) {
    return {kLabelFailureDomainBetaZone, kLabelFailureDomainBetaRegion};
  }
  const auto& labels = pv.metadata.labels;
  if (labels.contains(std::string(kLabelTopologyZone))) return {kLabelTopologyZone, kLabelTopologyRegion};
  if (labels.contains(std::string(kLabelFailureDomainBetaZone))) {
    return {kLabelFailureDomainBetaZone, kLabelFailureDomainBetaRegion};
  }
  return {kLabelTopologyZone, kLabelTopologyRegion};
}

const std::string* findLabel(const api::PersistentVolume& pv, std::string_view key) {
  auto it = pv.metadata.labels.find(std::string(key));
  return it == pv.metadata.labels.end() ? nullptr : &it->second;
}

// Zone expressions in the node affinity become `csiTopologyKey`; without them the zone label is
// turned into one. A beta region expression is upgraded to the GA key, so the PV still fits nodes
// that only carry GA labels.
void translateTopologyFromInTreeToCSI(api::PersistentVolume& pv, std::string_view csiTopologyKey) {
  const auto [zoneLabel, regionLabel] = getTopologyLabel(pv);
  if (!getTopologyValues(pv, zoneLabel).empty()) {
    replaceTopology(pv, zoneLabel, csiTopologyKey);
  } else if (const std::string* label = findLabel(pv, zoneLabel)) {
    addTopology(pv, csiTopologyKey, splitString(*label, kLabelMultiZoneDelimiter));
  }
  if (regionLabel == kLabelFailureDomainBetaRegion && !getTopologyValues(pv, regionLabel).empty()) {
    replaceTopology(pv, regionLabel, kLabelTopologyRegion);
  }
}

// vSphere's variant: the zone and the region each move to their own CSI key; a label becomes one
// value as is (vSphere has no multi-zone labels).
void translateTopologyFromInTreeVSphereToCSI(api::PersistentVolume& pv) {
  const auto [zoneLabel, regionLabel] = getTopologyLabel(pv);
  const std::pair<std::string_view, std::string_view> moves[] = {{zoneLabel, kVSphereTopologyZoneKey},
                                                                 {regionLabel, kVSphereTopologyRegionKey}};
  for (const auto& [inTreeKey, csiKey] : moves) {
    if (!getTopologyValues(pv, inTreeKey).empty()) {
      replaceTopology(pv, inTreeKey, csiKey);
    } else if (const std::string* label = findLabel(pv, inTreeKey); label && !label->empty()) {
      addTopology(pv, csiKey, {*label});
    }
  }
}

api::PersistentVolume inlinePV(std::string name, std::string_view driver, std::string handle, bool readOnly,
                               std::string_view accessMode) {
  api::PersistentVolume pv;
  pv.metadata.name = std::move(name);
  pv.spec.csi = api::CSIPersistentVolumeSource{std::string(driver), std::move(handle), readOnly};
  pv.spec.accessModes = {std::string(accessMode)};
  return pv;
}

// Replaces the PV's in-tree source by a CSI one (the caller clears the in-tree field).
void setCSISource(api::PersistentVolume& pv, std::string_view driver, std::string handle, bool readOnly) {
  pv.spec.csi = api::CSIPersistentVolumeSource{std::string(driver), std::move(handle), readOnly};
}

// ---- GCE PD (plugins/gce_pd.go) ----

std::string gceZonalVolumeID(std::string_view zone, std::string_view pdName) {
  return concat({"projects/", kGCEUnspecified, "/zones/", zone, "/disks/", pdName});
}

// Zones have the form {locale}-{region}-{zone}; all must share one region.
Result<std::string> gceGetRegionFromZones(const std::vector<std::string>& zones) {
  if (zones.empty()) return Error("no zones specified");
  std::set<std::string> regions;
  for (const auto& zone : zones) {
    const auto parts = split(zone, '-');
    if (parts.size() != 3) {
      return Error("zone in unexpected format, expected: {locale}-{region}-{zone}, got: " + zone);
    }
    regions.insert(concat({parts[0], "-", parts[1]}));
  }
  if (regions.size() != 1)
    return Error("multiple or no regions gotten from zones, got: " + formatStringSet(regions));
  return *regions.begin();
}

// The GCE PD CSI driver rejects ReadWriteMany and [ReadWriteOnce, ReadOnlyMany], which the in-tree
// plugin accepted and attached as ReadWriteOnce; keep legacy volumes working by saying so.
std::vector<std::string> backwardCompatibleAccessModes(const std::vector<std::string>& modes) {
  // Go keeps a nil list nil; an absent and an empty list are the same here.
  if (modes.empty()) return {};
  bool rwo = false, rox = false;
  for (const auto& m : modes) {
    if (m == kReadWriteMany || m == kReadWriteOnce) rwo = true;
    if (m == kReadOnlyMany) rox = true;
  }
  if (rox && !rwo) return {std::string(kReadOnlyMany)};
  return {std::string(kReadWriteOnce)};
}

Result<api::PersistentVolume> gcePDTranslatePV(api::PersistentVolume pv) {
  const api::GCEPersistentDiskVolumeSource source = *pv.spec.gcePersistentDisk;
  // Volumes provisioned before topology went GA carry the beta label.
  const std::string* label = findLabel(pv, kLabelFailureDomainBetaZone);
  if (label == nullptr || label->empty()) label = findLabel(pv, kLabelTopologyZone);
  const auto zones = splitString(label != nullptr ? *label : std::string(), kLabelMultiZoneDelimiter);
  std::string volumeID;
  if (zones.size() == 1 && !zones[0].empty()) {
    volumeID = gceZonalVolumeID(zones[0], source.pdName);
  } else if (zones.size() > 1) {
    auto region = gceGetRegionFromZones(zones);
    if (!region.ok()) return Error("failed to get region from zones: " + region.error().message());
    volumeID = concat({"projects/", kGCEUnspecified, "/regions/", *region, "/disks/", source.pdName});
  } else {
    volumeID = gceZonalVolumeID(kGCEUnspecified, source.pdName);
  }
  translateTopologyFromInTreeToCSI(pv, kGCEPDTopologyKey);
  pv.spec.gcePersistentDisk.reset();
  setCSISource(pv, kGCEPDDriverName, std::move(volumeID), source.readOnly);
  pv.spec.accessModes = backwardCompatibleAccessModes(pv.spec.accessModes);
  return pv;
}

Result<api::PersistentVolume> gcePDTranslateInline(const api::Volume& volume, std::string_view) {
  const auto& source = *volume.gcePersistentDisk;
  // The name must be unique per disk: it is the unique part of the staging path.
  return inlinePV(concat({kGCEPDDriverName, "-", source.pdName}), kGCEPDDriverName,
                  gceZonalVolumeID(kGCEUnspecified, source.pdName), source.readOnly,
                  source.readOnly ? kReadOnlyMany : kReadWriteOnce);
}

// ---- AWS EBS (plugins/aws_ebs.go) ----

bool isHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int unhex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

bool isAlnum(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Characters net/url accepts unescaped in a host name.
bool validHostChar(unsigned char c) {
  if (c >= 0x80 || isAlnum(c)) return true;
  return std::string_view("!$&'()*+,;=:[]<>\"-_.~").find(static_cast<char>(c)) != std::string_view::npos;
}

// net/url's unescape for a path (host == false) or a host name (host == true), with its errors.
Result<std::string> urlUnescape(std::string_view s, bool host) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size() || !isHex(s[i + 1]) || !isHex(s[i + 2])) {
        return Error("invalid URL escape " + quote(s.substr(i, 3)));
      }
      // In a host only %25 (in IPv6 zones) and escapes of non-ASCII bytes are allowed.
      if (host && unhex(s[i + 1]) < 8 && s.substr(i, 3) != "%25") {
        return Error("invalid URL escape " + quote(s.substr(i, 3)));
      }
      out += static_cast<char>(unhex(s[i + 1]) << 4 | unhex(s[i + 2]));
      i += 3;
      continue;
    }
    if (host && !validHostChar(static_cast<unsigned char>(c))) {
      return Error("invalid character " + quote(s.substr(i, 1)) + " in host name");
    }
    out += c;
    ++i;
  }
  return out;
}

// ":" followed by digits, or nothing.
bool validOptionalPort(std::string_view port) {
  if (port.empty()) return true;
  if (port[0] != ':') return false;
  for (char c : port.substr(1)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// The characters RFC 3986 allows in userinfo, as net/url checks them.
bool validUserinfo(std::string_view s) {
  for (unsigned char c : s) {
    if (isAlnum(c)) continue;
    if (std::string_view("-._:~!$&'()*+,;=%@").find(static_cast<char>(c)) == std::string_view::npos)
      return false;
  }
  return true;
}

// The unescaped path of an "aws://..." URL after the authority, or the error message net/url's Parse
// would give (`parse "<url>": <reason>`).
Result<std::string> parseAWSURLPath(std::string_view raw) {
  const size_t hash = raw.find('#');
  const std::string_view u = raw.substr(0, hash);
  auto fail = [](std::string_view url, const Error& e) {
    return Error("parse " + quote(url) + ": " + e.message());
  };
  for (unsigned char c : u) {
    if (c < 0x20 || c == 0x7f) return fail(u, Error("net/url: invalid control character in URL"));
  }
  std::string_view rest = u.substr(std::string_view("aws://").size());
  rest = rest.substr(0, rest.find('?'));
  const size_t slash = rest.find('/');
  const std::string_view authority = rest.substr(0, slash);
  const std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);

  const size_t at = authority.rfind('@');
  const std::string_view host = at == std::string_view::npos ? authority : authority.substr(at + 1);
  if (!host.empty() && host[0] == '[') {
    const size_t close = host.rfind(']');
    if (close == std::string_view::npos) return fail(u, Error("missing ']' in host"));
    if (!validOptionalPort(host.substr(close + 1))) {
      return fail(u, Error("invalid port " + quote(host.substr(close + 1)) + " after host"));
    }
  } else if (size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    if (!validOptionalPort(host.substr(colon))) {
      return fail(u, Error("invalid port " + quote(host.substr(colon)) + " after host"));
    }
  }
  if (auto h = urlUnescape(host, true); !h.ok()) return fail(u, h.error());
  if (at != std::string_view::npos) {
    const std::string_view userinfo = authority.substr(0, at);
    if (!validUserinfo(userinfo)) return fail(u, Error("net/url: invalid userinfo"));
    if (auto ui = urlUnescape(userinfo, false); !ui.ok()) return fail(u, ui.error());
  }
  auto unescaped = urlUnescape(path, false);
  if (!unescaped.ok()) return fail(u, unescaped.error());
  if (hash != std::string_view::npos) {
    if (auto frag = urlUnescape(raw.substr(hash + 1), false); !frag.ok()) return fail(raw, frag.error());
  }
  return unescaped;
}

// Kubernetes EBS volume IDs are "vol-..." or "aws://[<zone>]/vol-..."; the CSI driver wants "vol-...".
Result<std::string> kubernetesVolumeIDToEBSVolumeID(const std::string& kubernetesID) {
  if (!kubernetesID.starts_with("aws://")) return kubernetesID;
  auto path = parseAWSURLPath(kubernetesID);
  if (!path.ok()) return Error("Invalid disk name (" + kubernetesID + "): " + path.error().message());
  std::string_view awsID = *path;
  while (!awsID.empty() && awsID.front() == '/') awsID.remove_prefix(1);
  while (!awsID.empty() && awsID.back() == '/') awsID.remove_suffix(1);
  // ^vol-[^/]*$: after trimming, any remaining '/' is inside.
  if (!awsID.starts_with("vol-") || awsID.find('/') != std::string_view::npos) {
    return Error("Invalid format for AWS volume (" + kubernetesID + ")");
  }
  return std::string(awsID);
}

Result<std::string> ebsVolumeHandle(const std::string& volumeID) {
  auto handle = kubernetesVolumeIDToEBSVolumeID(volumeID);
  if (!handle.ok())
    return Error("failed to translate Kubernetes ID to EBS Volume ID " + handle.error().message());
  return handle;
}

Result<api::PersistentVolume> awsEBSTranslatePV(api::PersistentVolume pv) {
  const api::AWSElasticBlockStoreVolumeSource source = *pv.spec.awsElasticBlockStore;
  auto handle = ebsVolumeHandle(source.volumeID);
  if (!handle.ok()) return handle.error();
  translateTopologyFromInTreeToCSI(pv, kAWSEBSTopologyKey);
  pv.spec.awsElasticBlockStore.reset();
  setCSISource(pv, kAWSEBSDriverName, std::move(handle).value(), source.readOnly);
  return pv;
}

Result<api::PersistentVolume> awsEBSTranslateInline(const api::Volume& volume, std::string_view) {
  const auto& source = *volume.awsElasticBlockStore;
  auto handle = ebsVolumeHandle(source.volumeID);
  if (!handle.ok()) return handle.error();
  return inlinePV(concat({kAWSEBSDriverName, "-", *handle}), kAWSEBSDriverName, *handle, source.readOnly,
                  kReadWriteOnce);
}

// ---- Azure Disk (plugins/azure_disk.go): no topology translation ----

// Only managed disks migrate.
Result<void> checkAzureDiskKind(const api::AzureDiskVolumeSource& source) {
  if (source.kind && !equalsIgnoreCase(*source.kind, kAzureManagedDisk)) {
    return Error("kind(" + *source.kind + ") is not supported in csi migration");
  }
  return {};
}

Result<api::PersistentVolume> azureDiskTranslatePV(api::PersistentVolume pv) {
  const api::AzureDiskVolumeSource source = *pv.spec.azureDisk;
  if (auto kind = checkAzureDiskKind(source); !kind.ok()) return kind.error();
  pv.spec.azureDisk.reset();
  setCSISource(pv, kAzureDiskDriverName, source.diskURI, source.readOnly);
  return pv;
}

Result<api::PersistentVolume> azureDiskTranslateInline(const api::Volume& volume, std::string_view) {
  const auto& source = *volume.azureDisk;
  if (auto kind = checkAzureDiskKind(source); !kind.ok()) return kind.error();
  return inlinePV(source.diskURI, kAzureDiskDriverName, source.diskURI, source.readOnly, kReadWriteOnce);
}

// ---- Azure File (plugins/azure_file.go) ----

// The account in a secret named "azure-storage-account-<account>-secret" (leftmost match, greedy, not
// across a newline, as the regexp `azure-storage-account-(.+)-secret`); nullopt when it doesn't match.
std::optional<std::string> getStorageAccountName(std::string_view secretName) {
  constexpr std::string_view kPrefix = "azure-storage-account-";
  constexpr std::string_view kSuffix = "-secret";
  for (size_t start = secretName.find(kPrefix); start != std::string_view::npos;
       start = secretName.find(kPrefix, start + 1)) {
    const size_t from = start + kPrefix.size();
    const size_t lineEnd = secretName.find('\n', from);
    const std::string_view line =
        secretName.substr(from, lineEnd == std::string_view::npos ? lineEnd : lineEnd - from);
    const size_t suffix = line.rfind(kSuffix);
    if (suffix != std::string_view::npos && suffix > 0) return std::string(line.substr(0, suffix));
  }
  return std::nullopt;
}

std::string azureFileVolumeID(std::string_view resourceGroup, std::string_view secretName,
                              std::string_view share, std::string_view name,
                              std::string_view secretNamespace) {
  // An unconventional secret name stands for the account itself.
  const std::string account = getStorageAccountName(secretName).value_or(std::string(secretName));
  return concat({resourceGroup, "#", account, "#", share, "#", name, "#", secretNamespace});
}

Result<api::PersistentVolume> azureFileTranslatePV(api::PersistentVolume pv) {
  const api::AzureFileVolumeSource source = *pv.spec.azureFile;
  std::string resourceGroup;
  if (auto it = pv.metadata.annotations.find(std::string(kAzureFileResourceGroupAnnotation));
      it != pv.metadata.annotations.end()) {
    resourceGroup = it->second;
  }
  std::string secretNamespace;
  if (source.secretNamespace) {
    secretNamespace = *source.secretNamespace;
  } else if (pv.spec.claimRef) {
    secretNamespace = pv.spec.claimRef->namespace_;
  }
  if (secretNamespace.empty())
    return Error("could not find a secret namespace in PersistentVolumeSource or ClaimRef");
  std::string volumeID = azureFileVolumeID(resourceGroup, source.secretName, source.shareName,
                                           pv.metadata.name, secretNamespace);
  pv.spec.azureFile.reset();
  setCSISource(pv, kAzureFileDriverName, std::move(volumeID), source.readOnly);
  return pv;
}

Result<api::PersistentVolume> azureFileTranslateInline(const api::Volume& volume,
                                                       std::string_view podNamespace) {
  const auto& source = *volume.azureFile;
  const std::string_view secretNamespace =
      podNamespace.empty() ? kAzureFileDefaultSecretNamespace : podNamespace;
  std::string volumeID =
      azureFileVolumeID("", source.secretName, source.shareName, volume.name, secretNamespace);
  return inlinePV(volumeID, kAzureFileDriverName, volumeID, source.readOnly, kReadWriteMany);
}

// ---- OpenStack Cinder (plugins/openstack_cinder.go) ----

Result<api::PersistentVolume> cinderTranslatePV(api::PersistentVolume pv) {
  const api::CinderVolumeSource source = *pv.spec.cinder;
  translateTopologyFromInTreeToCSI(pv, kCinderTopologyKey);
  pv.spec.cinder.reset();
  setCSISource(pv, kCinderDriverName, source.volumeID, source.readOnly);
  return pv;
}

Result<api::PersistentVolume> cinderTranslateInline(const api::Volume& volume, std::string_view) {
  const auto& source = *volume.cinder;
  return inlinePV(concat({kCinderDriverName, "-", source.volumeID}), kCinderDriverName, source.volumeID,
                  source.readOnly, kReadWriteOnce);
}

// ---- vSphere (plugins/vsphere_volume.go): the CSI source is never read-only ----

Result<api::PersistentVolume> vsphereTranslatePV(api::PersistentVolume pv) {
  const api::VsphereVirtualDiskVolumeSource source = *pv.spec.vsphereVolume;
  translateTopologyFromInTreeVSphereToCSI(pv);
  pv.spec.vsphereVolume.reset();
  setCSISource(pv, kVSphereDriverName, source.volumePath, false);
  return pv;
}

// Upstream panics here when the volume names a storage policy (it reads the policy from the new PV's
// nil vSphere source). The policy would only go to volumeAttributes, which are not modelled, so such a
// volume translates like any other.
Result<api::PersistentVolume> vsphereTranslateInline(const api::Volume& volume, std::string_view) {
  const auto& source = *volume.vsphereVolume;
  return inlinePV(concat({kVSphereDriverName, "-", source.volumePath}), kVSphereDriverName, source.volumePath,
                  false, kReadWriteOnce);
}

// ---- Portworx (plugins/portworx.go): the CSI source is never read-only ----

Result<api::PersistentVolume> portworxTranslatePV(api::PersistentVolume pv) {
  const api::PortworxVolumeSource source = *pv.spec.portworxVolume;
  pv.spec.portworxVolume.reset();
  setCSISource(pv, kPortworxDriverName, source.volumeID, false);
  return pv;
}

Result<api::PersistentVolume> portworxTranslateInline(const api::Volume& volume, std::string_view) {
  const auto& source = *volume.portworxVolume;
  return inlinePV(concat({kPortworxDriverName, "-", source.volumeID}), kPortworxDriverName, source.volumeID,
                  false, source.readOnly ? kReadOnlyMany : kReadWriteOnce);
}

// ---- The plugin table (translate.go's inTreePlugins) ----

struct InTreePlugin {
  std::string_view inTreeName;
  std::string_view csiName;
  bool (*canSupport)(const api::PersistentVolumeSpec&);
  bool (*canSupportInline)(const api::Volume&);
  Result<api::PersistentVolume> (*translatePV)(api::PersistentVolume);
  Result<api::PersistentVolume> (*translateInline)(const api::Volume&, std::string_view podNamespace);
};

// Upstream iterates a map, so a spec with several in-tree sources (invalid) picks one at random; this
// order is fixed.
constexpr std::array<InTreePlugin, 7> kInTreePlugins = {{
    {kGCEPDInTreePluginName, kGCEPDDriverName,
     [](const api::PersistentVolumeSpec& s) { return s.gcePersistentDisk.has_value(); },
     [](const api::Volume& v) { return v.gcePersistentDisk.has_value(); }, gcePDTranslatePV,
     gcePDTranslateInline},
    {kAWSEBSInTreePluginName, kAWSEBSDriverName,
     [](const api::PersistentVolumeSpec& s) { return s.awsElasticBlockStore.has_value(); },
     [](const api::Volume& v) { return v.awsElasticBlockStore.has_value(); }, awsEBSTranslatePV,
     awsEBSTranslateInline},
    {kCinderInTreePluginName, kCinderDriverName,
     [](const api::PersistentVolumeSpec& s) { return s.cinder.has_value(); },
     [](const api::Volume& v) { return v.cinder.has_value(); }, cinderTranslatePV, cinderTranslateInline},
    {kAzureDiskInTreePluginName, kAzureDiskDriverName,
     [](const api::PersistentVolumeSpec& s) { return s.azureDisk.has_value(); },
     [](const api::Volume& v) { return v.azureDisk.has_value(); }, azureDiskTranslatePV,
     azureDiskTranslateInline},
    {kAzureFileInTreePluginName, kAzureFileDriverName,
     [](const api::PersistentVolumeSpec& s) { return s.azureFile.has_value(); },
     [](const api::Volume& v) { return v.azureFile.has_value(); }, azureFileTranslatePV,
     azureFileTranslateInline},
    {kVSphereInTreePluginName, kVSphereDriverName,
     [](const api::PersistentVolumeSpec& s) { return s.vsphereVolume.has_value(); },
     [](const api::Volume& v) { return v.vsphereVolume.has_value(); }, vsphereTranslatePV,
     vsphereTranslateInline},
    {kPortworxVolumePluginName, kPortworxDriverName,
     [](const api::PersistentVolumeSpec& s) { return s.portworxVolume.has_value(); },
     [](const api::Volume& v) { return v.portworxVolume.has_value(); }, portworxTranslatePV,
     portworxTranslateInline},
}};

const InTreePlugin* pluginForPV(const api::PersistentVolume& pv) {
  for (const auto& p : kInTreePlugins) {
    if (p.canSupport(pv.spec)) return &p;
  }
  return nullptr;
}

const InTreePlugin* pluginForInline(const api::Volume& volume) {
  for (const auto& p : kInTreePlugins) {
    if (p.canSupportInline(volume)) return &p;
  }
  return nullptr;
}

}  // namespace

bool Translator::isPVMigratable(const api::PersistentVolume& pv) const {
  return pluginForPV(pv) != nullptr;
}

bool Translator::isInlineMigratable(const api::Volume& volume) const {
  return pluginForInline(volume) != nullptr;
}

bool Translator::isMigratableIntreePluginByName(std::string_view inTreePluginName) const {
  for (const auto& p : kInTreePlugins) {
    if (p.inTreeName == inTreePluginName) return true;
  }
  return false;
}

bool Translator::isMigratedCSIDriverByName(std::string_view csiDriverName) const {
  for (const auto& p : kInTreePlugins) {
    if (p.csiName == csiDriverName) return true;
  }
  return false;
}

Result<std::string> Translator::getInTreePluginNameFromSpec(const api::PersistentVolume* pv,
                                                            const api::Volume* volume) const {
  if (pv != nullptr) {
    if (const InTreePlugin* p = pluginForPV(*pv)) return std::string(p->inTreeName);
    return Error("could not find in-tree plugin name from persistent volume " + pv->metadata.name);
  }
  if (volume != nullptr) {
    if (const InTreePlugin* p = pluginForInline(*volume)) return std::string(p->inTreeName);
    return Error("could not find in-tree plugin name from volume " + volume->name);
  }
  return Error("both persistent volume and volume are nil");
}

Result<std::string> Translator::getCSINameFromInTreeName(std::string_view pluginName) const {
  for (const auto& p : kInTreePlugins) {
    if (p.inTreeName == pluginName) return std::string(p.csiName);
  }
  return Error(concat({"could not find CSI Driver name for plugin ", pluginName}));
}

Result<std::string> Translator::getInTreeNameFromCSIName(std::string_view csiDriverName) const {
  for (const auto& p : kInTreePlugins) {
    if (p.csiName == csiDriverName) return std::string(p.inTreeName);
  }
  return Error(concat({"could not find In-Tree driver name for CSI plugin ", csiDriverName}));
}

Result<api::PersistentVolume> Translator::translateInTreePVToCSI(const api::PersistentVolume& pv) const {
  if (const InTreePlugin* p = pluginForPV(pv)) return p->translatePV(pv);
  return Error("could not find in-tree plugin translation logic for " + quote(pv.metadata.name));
}

Result<api::PersistentVolume> Translator::translateInTreeInlineVolumeToCSI(
    const api::Volume& volume, std::string_view podNamespace) const {
  const InTreePlugin* p = pluginForInline(volume);
  if (p == nullptr) return Error("could not find in-tree plugin translation logic for " + quote(volume.name));
  auto pv = p->translateInline(volume, podNamespace);
  if (!pv.ok()) return pv;
  // Inline volumes are always filesystem volumes; no PV defaulting fills this in for them.
  if (!pv->spec.volumeMode) pv->spec.volumeMode = "Filesystem";
  return pv;
}

bool isCSIMigrationOnForPlugin(std::string_view inTreePluginName, bool enableCSIMigrationPortworx) {
  if (inTreePluginName == kAWSEBSInTreePluginName || inTreePluginName == kGCEPDInTreePluginName ||
      inTreePluginName == kAzureDiskInTreePluginName || inTreePluginName == kCinderInTreePluginName) {
    return true;
  }
  return inTreePluginName == kPortworxVolumePluginName && enableCSIMigrationPortworx;
}

bool isPluginMigratedToCSIOnNode(std::string_view inTreePluginName, const api::CSINode* csiNode) {
  if (csiNode == nullptr) return false;
  const auto& annotations = csiNode->metadata.annotations;
  auto it = annotations.find(std::string(volume::kMigratedPluginsAnnotation));
  if (it == annotations.end() || it->second.empty()) return false;
  for (std::string_view migrated : split(it->second, ',')) {
    if (migrated == inTreePluginName) return true;
  }
  return false;
}

}  // namespace ks::volume::csitranslation
