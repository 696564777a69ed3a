#include "pkg/scheduler/framework/signers.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "pkg/util/go_sort.h"

namespace ks::framework {

namespace {

// A JSON object written field by field, omitting empty fields as Go's `omitempty` does.
class JsonObject {
 public:
  JsonObject& raw(std::string_view key, std::string_view json) {
    out_ += out_.empty() ? "{" : ",";
    out_ += goJsonString(key);
    out_ += ':';
    out_ += json;
    return *this;
  }
  JsonObject& str(std::string_view key, std::string_view value) {
    return value.empty() ? *this : raw(key, goJsonString(value));
  }
  JsonObject& num(std::string_view key, int64_t value) {
    return value == 0 ? *this : raw(key, std::to_string(value));
  }
  JsonObject& flag(std::string_view key, bool value) { return value ? raw(key, "true") : *this; }
  std::string done() { return out_.empty() ? "{}" : std::move(out_) + "}"; }

 private:
  std::string out_;
};

std::string joinList(const std::vector<std::string>& jsonItems) {
  std::string out = "[";
  for (std::size_t i = 0; i < jsonItems.size(); ++i) {
    if (i > 0) out += ',';
    out += jsonItems[i];
  }
  return out + "]";
}

std::string resourceList(const api::ResourceList& rl) {
  JsonObject o;
  for (const auto& [name, q] : rl) o.raw(name, goJsonString(q.toString()));
  return o.done();
}

// {"key":..,"operator":..,"values":[..]} with the values sorted (upstream NodeSelectorRequirementsSigner).
std::vector<std::string> requirements(const std::vector<api::NodeSelectorRequirement>& reqs) {
  std::vector<std::string> out;
  out.reserve(reqs.size());
  for (const auto& r : reqs) {
    std::vector<std::string> values = r.values;
    std::sort(values.begin(), values.end());
    JsonObject o;
    o.raw("key", goJsonString(r.key)).raw("operator", goJsonString(r.op));
    if (!values.empty()) {
      std::vector<std::string> quoted;
      for (const auto& v : values) quoted.push_back(goJsonString(v));
      o.raw("values", joinList(quoted));
    }
    out.push_back(o.done());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string stringsAsJsonStrings(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  quoted.reserve(items.size());
  for (const auto& s : items) quoted.push_back(goJsonString(s));
  return joinList(quoted);
}

// {"MatchExpressions":[..],"MatchFields":[..]}: upstream nodeSelTermSignResult (no json tags).
std::string selectorTerm(const api::NodeSelectorTerm& t) {
  return "{\"MatchExpressions\":" + stringsAsJsonStrings(requirements(t.matchExpressions)) +
         ",\"MatchFields\":" + stringsAsJsonStrings(requirements(t.matchFields)) + "}";
}

// The JSON of a volume's source, for the sources the model keeps (see the header for the others).
std::string volumeSource(const api::Volume& v) {
  JsonObject o;
  if (v.persistentVolumeClaim) {
    o.raw("persistentVolumeClaim", JsonObject()
                                       .str("claimName", v.persistentVolumeClaim->claimName)
                                       .flag("readOnly", v.persistentVolumeClaim->readOnly)
                                       .done());
  }
  if (v.ephemeral) {
    JsonObject spec;
    if (v.ephemeral->storageClassName)
      spec.raw("storageClassName", goJsonString(*v.ephemeral->storageClassName));
    spec.raw("resources", JsonObject().raw("requests", resourceList(v.ephemeral->requests)).done());
    o.raw("ephemeral",
          JsonObject().raw("volumeClaimTemplate", JsonObject().raw("spec", spec.done()).done()).done());
  }
  if (v.gcePersistentDisk) {
    const auto& s = *v.gcePersistentDisk;
    o.raw("gcePersistentDisk", JsonObject()
                                   .str("pdName", s.pdName)
                                   .str("fsType", s.fsType)
                                   .num("partition", s.partition)
                                   .flag("readOnly", s.readOnly)
                                   .done());
  }
  if (v.awsElasticBlockStore) {
    const auto& s = *v.awsElasticBlockStore;
    o.raw("awsElasticBlockStore", JsonObject()
                                      .str("volumeID", s.volumeID)
                                      .str("fsType", s.fsType)
                                      .num("partition", s.partition)
                                      .flag("readOnly", s.readOnly)
                                      .done());
  }
  if (v.iscsi) {
    const auto& s = *v.iscsi;
    o.raw("iscsi", JsonObject()
                       .str("targetPortal", s.targetPortal)
                       .str("iqn", s.iqn)
                       .raw("lun", std::to_string(s.lun))
                       .flag("readOnly", s.readOnly)
                       .done());
  }
  if (v.rbd) {
    const auto& s = *v.rbd;
    o.raw("rbd", JsonObject()
                     .raw("monitors", stringsAsJsonStrings(s.monitors))
                     .str("image", s.image)
                     .str("pool", s.pool)
                     .flag("readOnly", s.readOnly)
                     .done());
  }
  if (v.csi) o.raw("csi", JsonObject().str("driver", v.csi->driver).done());
  if (v.azureDisk) {
    const auto& s = *v.azureDisk;
    JsonObject d;
    d.str("diskName", s.diskName).str("diskURI", s.diskURI);
    if (s.kind) d.raw("kind", goJsonString(*s.kind));
    o.raw("azureDisk", d.flag("readOnly", s.readOnly).done());
  }
  if (v.azureFile) {
    const auto& s = *v.azureFile;
    JsonObject f;
    f.str("secretName", s.secretName).str("shareName", s.shareName).flag("readOnly", s.readOnly);
    if (s.secretNamespace) f.raw("secretNamespace", goJsonString(*s.secretNamespace));
    o.raw("azureFile", f.done());
  }
  if (v.cinder) {
    o.raw("cinder",
          JsonObject().str("volumeID", v.cinder->volumeID).flag("readOnly", v.cinder->readOnly).done());
  }
  if (v.vsphereVolume) {
    o.raw("vsphereVolume", JsonObject()
                               .str("volumePath", v.vsphereVolume->volumePath)
                               .str("storagePolicyName", v.vsphereVolume->storagePolicyName)
                               .done());
  }
  if (v.portworxVolume) {
    o.raw("portworxVolume", JsonObject()
                                .str("volumeID", v.portworxVolume->volumeID)
                                .flag("readOnly", v.portworxVolume->readOnly)
                                .done());
  }
  if (v.image) {
    o.raw("image",
          JsonObject().str("reference", v.image->reference).str("pullPolicy", v.image->pullPolicy).done());
  }
  if (!v.otherSource.empty()) o.raw(v.otherSource, "{}");
  return o.done();
}

}  // namespace

std::string goJsonString(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\t':
        out += "\\t";
        continue;
      case '\b':
        out += "\\b";
        continue;
      case '\f':
        out += "\\f";
        continue;
      case '<':
      case '>':
      case '&': {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
        continue;
      }
      default:
        break;
    }
    if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else if (c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(s[i + 2]) == 0xA8 ||
                static_cast<unsigned char>(s[i + 2]) == 0xA9)) {
      // U+2028 and U+2029, which Go escapes for JavaScript.
      out += static_cast<unsigned char>(s[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

std::string goJsonStringList(const std::vector<std::string>& items) {
  return stringsAsJsonStrings(items);
}

std::string goJsonStringMap(const std::map<std::string, std::string>& m) {
  if (m.empty()) return "null";
  JsonObject o;
  for (const auto& [k, v] : m) o.raw(k, goJsonString(v));
  return o.done();
}

std::string hostPortsSigner(const api::Pod& pod) {
  std::set<int32_t> ports;
  for (const auto* list : {&pod.spec.containers, &pod.spec.initContainers}) {
    for (const auto& c : *list) {
      for (const auto& p : c.ports) {
        if (p.hostPort != 0) ports.insert(p.hostPort);
      }
    }
  }
  std::vector<std::string> items;
  items.reserve(ports.size());
  for (int32_t p : ports) items.push_back(std::to_string(p));
  return joinList(items);
}

std::string tolerationsSigner(const api::Pod& pod) {
  std::vector<const api::Toleration*> sorted;
  sorted.reserve(pod.spec.tolerations.size());
  for (const auto& t : pod.spec.tolerations) sorted.push_back(&t);
  goSortSlice(sorted, [](const api::Toleration* a, const api::Toleration* b) {
    return a->key < b->key || (a->key == b->key && a->value < b->value);
  });
  std::vector<std::string> items;
  items.reserve(sorted.size());
  for (const api::Toleration* t : sorted) {
    JsonObject o;
    o.str("key", t->key).str("operator", t->op).str("value", t->value).str("effect", t->effect);
    if (t->tolerationSeconds) o.raw("tolerationSeconds", std::to_string(*t->tolerationSeconds));
    items.push_back(o.done());
  }
  return joinList(items);
}

std::string volumesSigner(const api::Pod& pod) {
  std::vector<std::string> sources;
  for (const auto& v : pod.spec.volumes) {
    if (v.otherSource == "configMap" || v.otherSource == "secret") continue;
    sources.push_back(volumeSource(v));
  }
  std::sort(sources.begin(), sources.end());
  return stringsAsJsonStrings(sources);
}

std::string nodeAffinitySigner(const api::Pod& pod) {
  if (!pod.spec.affinity || !pod.spec.affinity->nodeAffinity) return "null";
  const api::NodeAffinity& n = *pod.spec.affinity->nodeAffinity;
  std::vector<std::string> preferred;
  for (const auto& t : n.preferredDuringSchedulingIgnoredDuringExecution) {
    preferred.push_back("{\"Weight\":" + std::to_string(t.weight) +
                        ",\"Preference\":" + selectorTerm(t.preference) + "}");
  }
  std::sort(preferred.begin(), preferred.end());
  std::vector<std::string> required;
  if (n.requiredDuringSchedulingIgnoredDuringExecution) {
    for (const auto& t : n.requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms) {
      required.push_back(selectorTerm(t));
    }
  }
  std::sort(required.begin(), required.end());
  return "{\"Required\":" + stringsAsJsonStrings(required) +
         ",\"Preferred\":" + stringsAsJsonStrings(preferred) + "}";
}

std::string resourceSigner(const Resource& r) {
  std::string scalars = "null";
  if (!r.scalarResources.empty()) {
    JsonObject o;
    for (const auto& [name, v] : r.scalarResources) o.raw(name, std::to_string(v));
    scalars = o.done();
  }
  return "{\"MilliCPU\":" + std::to_string(r.milliCPU) + ",\"Memory\":" + std::to_string(r.memory) +
         ",\"EphemeralStorage\":" + std::to_string(r.ephemeralStorage) +
         ",\"AllowedPodNumber\":" + std::to_string(r.allowedPodNumber) + ",\"ScalarResources\":" + scalars +
         "}";
}

}  // namespace ks::framework
