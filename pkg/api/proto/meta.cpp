// metav1 types (apimachinery pkg/apis/meta/v1/generated.proto) and core/v1 ObjectReference.

#include "pkg/api/proto/internal.h"

namespace ks::api::protocodec {

bool read(DecodeContext& ctx, std::string_view msg, OwnerReference& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "kind", out.kind);
      case 3:
        return get(ctx, f, "name", out.name);
      case 4:
        return get(ctx, f, "uid", out.uid);
      case 5:
        return get(ctx, f, "apiVersion", out.apiVersion);
      case 6:
        return get(ctx, f, "controller", out.controller);
      case 7:
        return get(ctx, f, "blockOwnerDeletion", out.blockOwnerDeletion);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, ObjectMeta& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "name", out.name);
      case 2:
        return get(ctx, f, "generateName", out.generateName);
      case 3:
        return get(ctx, f, "namespace", out.namespace_);
      case 5:
        return get(ctx, f, "uid", out.uid);
      case 6:
        return get(ctx, f, "resourceVersion", out.resourceVersion);
      case 7:
        return get(ctx, f, "generation", out.generation);
      case 8:
        return get(ctx, f, "creationTimestamp", out.creationTimestamp);
      case 9:
        return get(ctx, f, "deletionTimestamp", out.deletionTimestamp);
      case 10:
        return get(ctx, f, "deletionGracePeriodSeconds", out.deletionGracePeriodSeconds);
      case 11:
        return get(ctx, f, "labels", out.labels);
      case 12:
        return get(ctx, f, "annotations", out.annotations);
      case 13:
        return get(ctx, f, "ownerReferences", out.ownerReferences);
      case 14:
        return get(ctx, f, "finalizers", out.finalizers);
      default:
        return true;  // selfLink, managedFields
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, LabelSelectorRequirement& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "key", out.key);
      case 2:
        return get(ctx, f, "operator", out.op);
      case 3:
        return get(ctx, f, "values", out.values);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, LabelSelector& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "matchLabels", out.matchLabels);
      case 2:
        return get(ctx, f, "matchExpressions", out.matchExpressions);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, StatusCause& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "reason", out.type);
      case 2:
        return get(ctx, f, "message", out.message);
      case 3:
        return get(ctx, f, "field", out.field);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, StatusDetails& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "name", out.name);
      case 2:
        return get(ctx, f, "group", out.group);
      case 3:
        return get(ctx, f, "kind", out.kind);
      case 4:
        return get(ctx, f, "causes", out.causes);
      case 5:
        return get(ctx, f, "retryAfterSeconds", out.retryAfterSeconds);
      case 6:
        return get(ctx, f, "uid", out.uid);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, ApiStatus& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 2:
        return get(ctx, f, "status", out.status);
      case 3:
        return get(ctx, f, "message", out.message);
      case 4:
        return get(ctx, f, "reason", out.reason);
      case 5:
        return get(ctx, f, "details", out.details);
      case 6:
        return get(ctx, f, "code", out.code);
      default:
        return true;  // metadata
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, ListMeta& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 2:
        return get(ctx, f, "resourceVersion", out.resourceVersion);
      case 3:
        return get(ctx, f, "continue", out.continue_);
      case 4:
        return get(ctx, f, "remainingItemCount", out.remainingItemCount);
      default:
        return true;  // selfLink
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, ObjectReference& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "kind", out.kind);
      case 2:
        return get(ctx, f, "namespace", out.namespace_);
      case 3:
        return get(ctx, f, "name", out.name);
      case 4:
        return get(ctx, f, "uid", out.uid);
      case 5:
        return get(ctx, f, "apiVersion", out.apiVersion);
      case 6:
        return get(ctx, f, "resourceVersion", out.resourceVersion);
      case 7:
        return get(ctx, f, "fieldPath", out.fieldPath);
      default:
        return true;
    }
  });
}

// core/v1 Binding, read back by the tests of its writer.
bool read(DecodeContext& ctx, std::string_view msg, Binding& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "metadata", out.metadata);
      case 2:
        return get(ctx, f, "target", out.target);
      default:
        return true;
    }
  });
}

namespace {
// A map<string, string> field: one {key = 1, value = 2} entry message per pair.
void writeStringMap(Writer& w, uint32_t number, const std::map<std::string, std::string>& m) {
  for (const auto& [k, v] : m) {
    Writer entry;
    entry.bytes(1, k);
    entry.bytes(2, v);
    w.bytes(number, entry.data());
  }
}
}  // namespace

// Go's generated Marshal writes every value field, empty or not, and pointer fields when set; only the
// fields a Binding carries are needed.
std::string write(const ObjectMeta& in) {
  Writer w;
  w.bytes(1, in.name);
  w.bytes(2, in.generateName);
  w.bytes(3, in.namespace_);
  w.bytes(5, in.uid);
  w.bytes(6, in.resourceVersion);
  w.varint(7, static_cast<uint64_t>(in.generation));
  writeStringMap(w, 11, in.labels);
  writeStringMap(w, 12, in.annotations);
  return w.take();
}

std::string write(const ObjectReference& in) {
  Writer w;
  w.bytes(1, in.kind);
  w.bytes(2, in.namespace_);
  w.bytes(3, in.name);
  w.bytes(4, in.uid);
  w.bytes(5, in.apiVersion);
  w.bytes(6, in.resourceVersion);
  w.bytes(7, in.fieldPath);
  return w.take();
}

}  // namespace ks::api::protocodec
