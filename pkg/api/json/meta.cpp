// metav1 types: ObjectMeta, LabelSelector, Status, ListMeta, and core/v1 ObjectReference.

#include "pkg/api/json/internal.h"

namespace ks::api::jsoncodec {

bool read(DecodeContext& ctx, const Json& j, OwnerReference& out) {
  return ObjectReader(ctx, j)
      .field("apiVersion", out.apiVersion)
      .field("kind", out.kind)
      .field("name", out.name)
      .field("uid", out.uid)
      .field("controller", out.controller)
      .field("blockOwnerDeletion", out.blockOwnerDeletion)
      .ok();
}

Json write(const OwnerReference& in) {
  Json o = Json::object();
  o["apiVersion"] = in.apiVersion;
  o["kind"] = in.kind;
  o["name"] = in.name;
  o["uid"] = in.uid;
  put(o, "controller", in.controller);
  put(o, "blockOwnerDeletion", in.blockOwnerDeletion);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ObjectMeta& out) {
  return ObjectReader(ctx, j)
      .field("name", out.name)
      .field("generateName", out.generateName)
      .field("namespace", out.namespace_)
      .field("uid", out.uid)
      .field("resourceVersion", out.resourceVersion)
      .field("generation", out.generation)
      .field("creationTimestamp", out.creationTimestamp)
      .field("deletionTimestamp", out.deletionTimestamp)
      .field("deletionGracePeriodSeconds", out.deletionGracePeriodSeconds)
      .field("labels", out.labels)
      .field("annotations", out.annotations)
      .field("ownerReferences", out.ownerReferences)
      .field("finalizers", out.finalizers)
      .ok();
}

Json write(const ObjectMeta& in) {
  Json o = Json::object();
  put(o, "name", in.name);
  put(o, "generateName", in.generateName);
  put(o, "namespace", in.namespace_);
  put(o, "uid", in.uid);
  put(o, "resourceVersion", in.resourceVersion);
  put(o, "generation", in.generation);
  putTime(o, "creationTimestamp", in.creationTimestamp);
  putTime(o, "deletionTimestamp", in.deletionTimestamp);
  put(o, "deletionGracePeriodSeconds", in.deletionGracePeriodSeconds);
  put(o, "labels", in.labels);
  put(o, "annotations", in.annotations);
  put(o, "ownerReferences", in.ownerReferences);
  put(o, "finalizers", in.finalizers);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, LabelSelectorRequirement& out) {
  return ObjectReader(ctx, j)
      .field("key", out.key)
      .field("operator", out.op)
      .field("values", out.values)
      .ok();
}

Json write(const LabelSelectorRequirement& in) {
  Json o = Json::object();
  o["key"] = in.key;
  o["operator"] = in.op;
  put(o, "values", in.values);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, LabelSelector& out) {
  return ObjectReader(ctx, j)
      .field("matchLabels", out.matchLabels)
      .field("matchExpressions", out.matchExpressions)
      .ok();
}

Json write(const LabelSelector& in) {
  Json o = Json::object();
  put(o, "matchLabels", in.matchLabels);
  put(o, "matchExpressions", in.matchExpressions);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, StatusCause& out) {
  return ObjectReader(ctx, j)
      .field("reason", out.type)
      .field("message", out.message)
      .field("field", out.field)
      .ok();
}

Json write(const StatusCause& in) {
  Json o = Json::object();
  put(o, "reason", in.type);
  put(o, "message", in.message);
  put(o, "field", in.field);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, StatusDetails& out) {
  return ObjectReader(ctx, j)
      .field("name", out.name)
      .field("group", out.group)
      .field("kind", out.kind)
      .field("uid", out.uid)
      .field("causes", out.causes)
      .field("retryAfterSeconds", out.retryAfterSeconds)
      .ok();
}

Json write(const StatusDetails& in) {
  Json o = Json::object();
  put(o, "name", in.name);
  put(o, "group", in.group);
  put(o, "kind", in.kind);
  put(o, "uid", in.uid);
  put(o, "causes", in.causes);
  put(o, "retryAfterSeconds", in.retryAfterSeconds);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ApiStatus& out) {
  return ObjectReader(ctx, j)
      .field("status", out.status)
      .field("message", out.message)
      .field("reason", out.reason)
      .field("details", out.details)
      .field("code", out.code)
      .ok();
}

Json write(const ApiStatus& in) {
  Json o = Json::object();
  o["metadata"] = Json::object();
  put(o, "status", in.status);
  put(o, "message", in.message);
  put(o, "reason", in.reason);
  put(o, "details", in.details);
  put(o, "code", in.code);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ListMeta& out) {
  return ObjectReader(ctx, j)
      .field("resourceVersion", out.resourceVersion)
      .field("continue", out.continue_)
      .field("remainingItemCount", out.remainingItemCount)
      .ok();
}

Json write(const ListMeta& in) {
  Json o = Json::object();
  put(o, "resourceVersion", in.resourceVersion);
  put(o, "continue", in.continue_);
  put(o, "remainingItemCount", in.remainingItemCount);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ObjectReference& out) {
  return ObjectReader(ctx, j)
      .field("kind", out.kind)
      .field("namespace", out.namespace_)
      .field("name", out.name)
      .field("uid", out.uid)
      .field("apiVersion", out.apiVersion)
      .field("resourceVersion", out.resourceVersion)
      .field("fieldPath", out.fieldPath)
      .ok();
}

Json write(const ObjectReference& in) {
  Json o = Json::object();
  put(o, "kind", in.kind);
  put(o, "namespace", in.namespace_);
  put(o, "name", in.name);
  put(o, "uid", in.uid);
  put(o, "apiVersion", in.apiVersion);
  put(o, "resourceVersion", in.resourceVersion);
  put(o, "fieldPath", in.fieldPath);
  return o;
}

}  // namespace ks::api::jsoncodec
