#pragma once
// Field tables (schema.h) of the metav1 types and core/v1 ObjectReference. Numbers: apimachinery's
// pkg/apis/meta/v1/generated.proto and k8s.io/api core/v1.
// Hand-written: ApiStatus's JSON writer (the apiserver's Status carries an empty "metadata").
// Not kept: ObjectMeta selfLink (4), managedFields (17); ListMeta selfLink (1); Status metadata (1).

#define KS_FIELDS_OwnerReference(X) \
  X(apiVersion, "apiVersion", 5, Always) \
  X(kind, "kind", 1, Always) \
  X(name, "name", 3, Always) \
  X(uid, "uid", 4, Always) \
  X(controller, "controller", 6, OmitEmpty) \
  X(blockOwnerDeletion, "blockOwnerDeletion", 7, OmitEmpty)

#define KS_FIELDS_ObjectMeta(X) \
  X(name, "name", 1, OmitEmpty) \
  X(generateName, "generateName", 2, OmitEmpty) \
  X(namespace_, "namespace", 3, OmitEmpty) \
  X(uid, "uid", 5, OmitEmpty) \
  X(resourceVersion, "resourceVersion", 6, OmitEmpty) \
  X(generation, "generation", 7, OmitEmpty) \
  X(creationTimestamp, "creationTimestamp", 8, OmitEmpty) \
  X(deletionTimestamp, "deletionTimestamp", 9, OmitEmpty) \
  X(deletionGracePeriodSeconds, "deletionGracePeriodSeconds", 10, OmitEmpty) \
  X(labels, "labels", 11, OmitEmpty) \
  X(annotations, "annotations", 12, OmitEmpty) \
  X(ownerReferences, "ownerReferences", 13, OmitEmpty) \
  X(finalizers, "finalizers", 14, OmitEmpty)

#define KS_FIELDS_LabelSelectorRequirement(X) \
  X(key, "key", 1, Always) \
  X(op, "operator", 2, Always) \
  X(values, "values", 3, OmitEmpty)

#define KS_FIELDS_LabelSelector(X) \
  X(matchLabels, "matchLabels", 1, OmitEmpty) \
  X(matchExpressions, "matchExpressions", 2, OmitEmpty)

#define KS_FIELDS_StatusCause(X) \
  X(type, "reason", 1, OmitEmpty) \
  X(message, "message", 2, OmitEmpty) \
  X(field, "field", 3, OmitEmpty)

#define KS_FIELDS_StatusDetails(X) \
  X(name, "name", 1, OmitEmpty) \
  X(group, "group", 2, OmitEmpty) \
  X(kind, "kind", 3, OmitEmpty) \
  X(uid, "uid", 6, OmitEmpty) \
  X(causes, "causes", 4, OmitEmpty) \
  X(retryAfterSeconds, "retryAfterSeconds", 5, OmitEmpty)

#define KS_FIELDS_ApiStatus(X) \
  X(status, "status", 2, OmitEmpty) \
  X(message, "message", 3, OmitEmpty) \
  X(reason, "reason", 4, OmitEmpty) \
  X(details, "details", 5, OmitEmpty) \
  X(code, "code", 6, OmitEmpty)

#define KS_FIELDS_ListMeta(X) \
  X(resourceVersion, "resourceVersion", 2, OmitEmpty) \
  X(continue_, "continue", 3, OmitEmpty) \
  X(remainingItemCount, "remainingItemCount", 4, OmitEmpty)

#define KS_FIELDS_ObjectReference(X) \
  X(kind, "kind", 1, OmitEmpty) \
  X(namespace_, "namespace", 2, OmitEmpty) \
  X(name, "name", 3, OmitEmpty) \
  X(uid, "uid", 4, OmitEmpty) \
  X(apiVersion, "apiVersion", 5, OmitEmpty) \
  X(resourceVersion, "resourceVersion", 6, OmitEmpty) \
  X(fieldPath, "fieldPath", 7, OmitEmpty)
