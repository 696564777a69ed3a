// The scheduling-constraint part of the apiserver's pod validation (pkg/api/validation.h), with the cases
// ported from upstream v1.34.4 pkg/apis/core/validation/validation_test.go that concern it:
//  - TestValidatePod: every success and error case that sets spec.affinity (names prefixed
//    "TestValidatePod/"), and TestValidatePodSpec's "populate Affinity";
//  - TestValidateTopologySpreadConstraints: the cases whose options are those of a new pod under v1.34's
//    default gates (MatchLabelKeysInPodTopologySpread and ...SelectorMerge on, no old pod). Skipped, as a new
//    pod never gets their options: "... when AllowMatchLabelKeysInPodTopologySpreadSelectorMerge is false"
//    (3), "invalid MatchLabels set on LabelSelector when AllowInvalidTopologySpreadConstraintLabelSelector is
//    true", "invalid MatchLabelKeys when OldPodViolatesMatchLabelKeysValidation is true", the three
//    "... SelectorMerge is false and OldPodViolatesLegacyMatchLabelKeysValidation is ..." cases and
//    "invalid MatchLabelKeys when AllowMatchLabelKeysInPodTopologySpread is false and ...SelectorMerge is
//    true".
// Upstream checks only error types/fields (or a substring); the expected texts here are the full messages
// upstream's ValidatePodCreate prints for the same pods (v1 JSON decoded with defaulting, options from
// GetValidationOptionsFromPodSpecAndMeta), in order.

#include "pkg/api/validation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pkg/api/json/codec_nlohmann.h"

namespace ks::api {
namespace {

struct Case {
  std::string name;
  std::string spec;  // JSON members of the pod's spec besides its containers
  std::vector<std::string> want;
};

Pod podWithSpec(const std::string& spec) {
  const std::string text =
      R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
          "spec": {"containers": [{"name": "c", "image": "i"}])" +
      (spec.empty() ? "" : ", " + spec) + "}}";
  auto pod = fromJson<Pod>(nlohmann::json::parse(text));
  EXPECT_TRUE(pod.ok()) << pod.error().message();
  return pod.ok() ? *pod : Pod{};
}

// The messages as ErrorList.ToAggregate keeps them: in order, repeats dropped.
std::vector<std::string> messages(const FieldErrorList& errs) {
  std::vector<std::string> out;
  for (const FieldError& e : errs) {
    std::string m = e.message();
    if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(std::move(m));
  }
  return out;
}

void run(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(messages(validatePodSchedulingConstraints(podWithSpec(c.spec))), c.want);
  }
}

TEST(PodValidationTest, ValidatePodAffinity) {
  const std::vector<Case> cases = {
      {"TestValidatePod/serialized node affinity requirements",
       R"json(
       "affinity": {
         "nodeAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": {
             "nodeSelectorTerms": [
               {
                 "matchExpressions": [{"key": "key2", "operator": "In", "values": ["value1", "value2"]}],
                 "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["host1"]}]
               }
             ]
           },
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "preference": {"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar"]}]}
             }
           ]
         }
       })json",
       {}},
      {"TestValidatePod/serialized node affinity requirements, II",
       R"json(
       "affinity": {
         "nodeAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{}]},
           "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "preference": {}}]
         }
       })json",
       {}},
      {"TestValidatePod/serialized pod affinity in affinity requirements in annotations",
       R"json(
       "affinity": {
         "podAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "labelSelector": {
                 "matchExpressions": [{"key": "key2", "operator": "In", "values": ["value1", "value2"]}]
               },
               "namespaces": ["ns"],
               "topologyKey": "zone",
               "namespaceSelector": {
                 "matchExpressions": [{"key": "key", "operator": "In", "values": ["value1", "value2"]}]
               }
             }
           ],
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "labelSelector": {
                   "matchExpressions": [
                     {"key": "key2", "operator": "NotIn", "values": ["value1", "value2"]}
                   ]
                 },
                 "namespaces": ["ns"],
                 "topologyKey": "region"
               }
             }
           ]
         }
       })json",
       {}},
      {"TestValidatePod/serialized pod anti affinity with different Label Operators in affinity requirements "
       "in annotations",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "labelSelector": {"matchExpressions": [{"key": "key2", "operator": "Exists"}]},
               "namespaces": ["ns"],
               "topologyKey": "zone"
             }
           ],
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "labelSelector": {"matchExpressions": [{"key": "key2", "operator": "DoesNotExist"}]},
                 "namespaces": ["ns"],
                 "topologyKey": "region"
               }
             }
           ]
         }
       })json",
       {}},
      {"TestValidatePod/MatchLabelKeys/MismatchLabelKeys in required PodAffinity",
       R"json(
       "affinity": {
         "podAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "labelSelector": {
                 "matchExpressions": [
                   {"key": "key", "operator": "NotIn", "values": ["value1", "value2"]},
                   {"key": "key2", "operator": "In", "values": ["value1"]},
                   {"key": "key3", "operator": "NotIn", "values": ["value1"]}
                 ]
               },
               "topologyKey": "k8s.io/zone",
               "matchLabelKeys": ["key2"],
               "mismatchLabelKeys": ["key3"]
             }
           ]
         }
       })json",
       {}},
      {"TestValidatePod/MatchLabelKeys/MismatchLabelKeys in preferred PodAffinity",
       R"json(
       "affinity": {
         "podAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "labelSelector": {
                   "matchExpressions": [
                     {"key": "key", "operator": "NotIn", "values": ["value1", "value2"]},
                     {"key": "key2", "operator": "In", "values": ["value1"]},
                     {"key": "key3", "operator": "NotIn", "values": ["value1"]}
                   ]
                 },
                 "topologyKey": "k8s.io/zone",
                 "matchLabelKeys": ["key2"],
                 "mismatchLabelKeys": ["key3"]
               }
             }
           ]
         }
       })json",
       {}},
      {"TestValidatePod/MatchLabelKeys/MismatchLabelKeys in required PodAntiAffinity",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "labelSelector": {
                 "matchExpressions": [
                   {"key": "key", "operator": "NotIn", "values": ["value1", "value2"]},
                   {"key": "key2", "operator": "In", "values": ["value1"]},
                   {"key": "key3", "operator": "NotIn", "values": ["value1"]}
                 ]
               },
               "topologyKey": "k8s.io/zone",
               "matchLabelKeys": ["key2"],
               "mismatchLabelKeys": ["key3"]
             }
           ]
         }
       })json",
       {}},
      {"TestValidatePod/MatchLabelKeys/MismatchLabelKeys in preferred PodAntiAffinity",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "labelSelector": {
                   "matchExpressions": [
                     {"key": "key", "operator": "NotIn", "values": ["value1", "value2"]},
                     {"key": "key2", "operator": "In", "values": ["value1"]},
                     {"key": "key3", "operator": "NotIn", "values": ["value1"]}
                   ]
                 },
                 "topologyKey": "k8s.io/zone",
                 "matchLabelKeys": ["key2"],
                 "mismatchLabelKeys": ["key3"]
               }
             }
           ]
         }
       })json",
       {}},
      {"TestValidatePod/LabelSelector can have the same key as MismatchLabelKeys",
       R"json(
       "affinity": {
         "podAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "labelSelector": {
                 "matchExpressions": [
                   {"key": "key", "operator": "NotIn", "values": ["value1", "value2"]},
                   {"key": "key2", "operator": "In", "values": ["value1"]},
                   {"key": "key2", "operator": "NotIn", "values": ["value1"]}
                 ]
               },
               "topologyKey": "k8s.io/zone",
               "mismatchLabelKeys": ["key2"]
             }
           ]
         }
       })json",
       {}},
      {"TestValidatePod/invalid node selector requirement in node affinity, operator can't be null",
       R"json(
       "affinity": {
         "nodeAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": {
             "nodeSelectorTerms": [{"matchExpressions": [{"key": "key1", "operator": ""}]}]
           }
         }
       })json",
       {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
        "matchExpressions[0].operator: Invalid value: \"\": not a valid selector operator"}},
      {"TestValidatePod/invalid node selector requirement in node affinity, key is invalid",
       R"json(
       "affinity": {
         "nodeAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": {
             "nodeSelectorTerms": [
               {"matchExpressions": [{"key": "invalid key ___@#", "operator": "Exists"}]}
             ]
           }
         }
       })json",
       {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
        "matchExpressions[0].key: Invalid value: \"invalid key ___@#\": name part must consist of "
        "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}},
      {"TestValidatePod/invalid node field selector requirement in node affinity, more values for field "
       "selector",
       R"json(
       "affinity": {
         "nodeAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": {
             "nodeSelectorTerms": [
               {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["host1", "host2"]}]}
             ]
           }
         }
       })json",
       {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
        "matchFields[0].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' "
        "for node field selector"}},
      {"TestValidatePod/invalid node field selector requirement in node affinity, invalid operator",
       R"json(
       "affinity": {
         "nodeAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": {
             "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "Exists"}]}]
           }
         }
       })json",
       {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
        "matchFields[0].operator: Invalid value: \"Exists\": not a valid selector operator"}},
      {"TestValidatePod/invalid node field selector requirement in node affinity, invalid key",
       R"json(
       "affinity": {
         "nodeAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": {
             "nodeSelectorTerms": [
               {"matchFields": [{"key": "metadata.namespace", "operator": "In", "values": ["ns1"]}]}
             ]
           }
         }
       })json",
       {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
        "matchFields[0].key: Invalid value: \"metadata.namespace\": not a valid field selector key"}},
      {"TestValidatePod/invalid preferredSchedulingTerm in node affinity, weight should be in range 1-100",
       R"json(
       "affinity": {
         "nodeAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 199,
               "preference": {"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar"]}]}
             }
           ]
         }
       })json",
       {"spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid "
        "value: 199: must be in the range 1-100"}},
      {"TestValidatePod/invalid requiredDuringSchedulingIgnoredDuringExecution node selector, "
       "nodeSelectorTerms must have at least one term",
       R"json(
       "affinity": {
         "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}
       })json",
       {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: "
        "Required value: must have at least one node selector term"}},
      {"TestValidatePod/invalid weight in preferredDuringSchedulingIgnoredDuringExecution in pod affinity "
       "annotations, weight should be in range 1-100",
       R"json(
       "affinity": {
         "podAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 109,
               "podAffinityTerm": {
                 "labelSelector": {
                   "matchExpressions": [
                     {"key": "key2", "operator": "NotIn", "values": ["value1", "value2"]}
                   ]
                 },
                 "namespaces": ["ns"],
                 "topologyKey": "region"
               }
             }
           ]
         }
       })json",
       {"spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid "
        "value: 109: must be in the range 1-100"}},
      {"TestValidatePod/invalid labelSelector in preferredDuringSchedulingIgnoredDuringExecution in "
       "podaffinity annotations, values should be empty if the operator is Exists",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "labelSelector": {
                   "matchExpressions": [
                     {"key": "key2", "operator": "Exists", "values": ["value1", "value2"]}
                   ]
                 },
                 "namespaces": ["ns"],
                 "topologyKey": "region"
               }
             }
           ]
         }
       })json",
       {"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "labelSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is "
        "'Exists' or 'DoesNotExist'"}},
      {"TestValidatePod/invalid namespaceSelector in preferredDuringSchedulingIgnoredDuringExecution in "
       "podaffinity, In operator must include Values",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "namespaces": ["ns"],
                 "topologyKey": "region",
                 "namespaceSelector": {"matchExpressions": [{"key": "key2", "operator": "In"}]}
               }
             }
           ]
         }
       })json",
       {"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` "
        "is 'In' or 'NotIn'"}},
      {"TestValidatePod/invalid namespaceSelector in preferredDuringSchedulingIgnoredDuringExecution in "
       "podaffinity, Exists operator can not have values",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "namespaces": ["ns"],
                 "topologyKey": "region",
                 "namespaceSelector": {
                   "matchExpressions": [
                     {"key": "key2", "operator": "Exists", "values": ["value1", "value2"]}
                   ]
                 }
               }
             }
           ]
         }
       })json",
       {"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "namespaceSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is "
        "'Exists' or 'DoesNotExist'"}},
      {"TestValidatePod/invalid name space in preferredDuringSchedulingIgnoredDuringExecution in podaffinity "
       "annotations, namespace should be valid",
       R"json(
       "affinity": {
         "podAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "labelSelector": {"matchExpressions": [{"key": "key2", "operator": "Exists"}]},
                 "namespaces": ["INVALID_NAMESPACE"],
                 "topologyKey": "region"
               }
             }
           ]
         }
       })json",
       {"spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "namespace: Invalid value: \"INVALID_NAMESPACE\": a lowercase RFC 1123 label must consist of lower "
        "case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
        "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"}},
      {"TestValidatePod/invalid hard pod affinity, empty topologyKey is not allowed for hard pod affinity",
       R"json(
       "affinity": {
         "podAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "labelSelector": {
                 "matchExpressions": [{"key": "key2", "operator": "In", "values": ["value1", "value2"]}]
               },
               "namespaces": ["ns"],
               "topologyKey": ""
             }
           ]
         }
       })json",
       {"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required "
        "value: can not be empty",
        "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid "
        "value: \"\": name part must be non-empty",
        "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid "
        "value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start "
        "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
        "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}},
      {"TestValidatePod/invalid hard pod anti-affinity, empty topologyKey is not allowed for hard pod "
       "anti-affinity",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "labelSelector": {
                 "matchExpressions": [{"key": "key2", "operator": "In", "values": ["value1", "value2"]}]
               },
               "namespaces": ["ns"],
               "topologyKey": ""
             }
           ]
         }
       })json",
       {"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
        "Required value: can not be empty",
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
        "Invalid value: \"\": name part must be non-empty",
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
        "Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
        "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}},
      {"TestValidatePod/invalid soft pod affinity, empty topologyKey is not allowed for soft pod affinity",
       R"json(
       "affinity": {
         "podAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "labelSelector": {
                   "matchExpressions": [
                     {"key": "key2", "operator": "NotIn", "values": ["value1", "value2"]}
                   ]
                 },
                 "namespaces": ["ns"],
                 "topologyKey": ""
               }
             }
           ]
         }
       })json",
       {"spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "topologyKey: Required value: can not be empty",
        "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "topologyKey: Invalid value: \"\": name part must be non-empty",
        "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "topologyKey: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or "
        "'.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
        "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}},
      {"TestValidatePod/invalid soft pod anti-affinity, empty topologyKey is not allowed for soft pod "
       "anti-affinity",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "labelSelector": {
                   "matchExpressions": [
                     {"key": "key2", "operator": "NotIn", "values": ["value1", "value2"]}
                   ]
                 },
                 "namespaces": ["ns"],
                 "topologyKey": ""
               }
             }
           ]
         }
       })json",
       {"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "topologyKey: Required value: can not be empty",
        "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "topologyKey: Invalid value: \"\": name part must be non-empty",
        "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "topologyKey: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or "
        "'.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
        "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}},
      {"TestValidatePod/invalid soft pod affinity, key in MatchLabelKeys isn't correctly defined",
       R"json(
       "affinity": {
         "podAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "labelSelector": {
                   "matchExpressions": [{"key": "key", "operator": "NotIn", "values": ["value1", "value2"]}]
                 },
                 "topologyKey": "k8s.io/zone",
                 "matchLabelKeys": ["/simple"]
               }
             }
           ]
         }
       })json",
       {"spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "matchLabelKeys[0]: Invalid value: \"/simple\": prefix part must be non-empty"}},
      {"TestValidatePod/invalid hard pod affinity, key in MatchLabelKeys isn't correctly defined",
       R"json(
       "affinity": {
         "podAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "labelSelector": {
                 "matchExpressions": [{"key": "key", "operator": "NotIn", "values": ["value1", "value2"]}]
               },
               "topologyKey": "k8s.io/zone",
               "matchLabelKeys": ["/simple"]
             }
           ]
         }
       })json",
       {"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys[0]: "
        "Invalid value: \"/simple\": prefix part must be non-empty"}},
      {"TestValidatePod/invalid soft pod anti-affinity, key in MatchLabelKeys isn't correctly defined",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "labelSelector": {
                   "matchExpressions": [{"key": "key", "operator": "NotIn", "values": ["value1", "value2"]}]
                 },
                 "topologyKey": "k8s.io/zone",
                 "matchLabelKeys": ["/simple"]
               }
             }
           ]
         }
       })json",
       {"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "matchLabelKeys[0]: Invalid value: \"/simple\": prefix part must be non-empty"}},
      {"TestValidatePod/invalid hard pod anti-affinity, key in MatchLabelKeys isn't correctly defined",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "labelSelector": {
                 "matchExpressions": [{"key": "key", "operator": "NotIn", "values": ["value1", "value2"]}]
               },
               "topologyKey": "k8s.io/zone",
               "matchLabelKeys": ["/simple"]
             }
           ]
         }
       })json",
       {"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
        "matchLabelKeys[0]: Invalid value: \"/simple\": prefix part must be non-empty"}},
      {"TestValidatePod/invalid soft pod affinity, key in MismatchLabelKeys isn't correctly defined",
       R"json(
       "affinity": {
         "podAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "labelSelector": {
                   "matchExpressions": [{"key": "key", "operator": "NotIn", "values": ["value1", "value2"]}]
                 },
                 "topologyKey": "k8s.io/zone",
                 "mismatchLabelKeys": ["/simple"]
               }
             }
           ]
         }
       })json",
       {"spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "mismatchLabelKeys[0]: Invalid value: \"/simple\": prefix part must be non-empty"}},
      {"TestValidatePod/invalid hard pod affinity, key in MismatchLabelKeys isn't correctly defined",
       R"json(
       "affinity": {
         "podAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "labelSelector": {
                 "matchExpressions": [{"key": "key", "operator": "NotIn", "values": ["value1", "value2"]}]
               },
               "topologyKey": "k8s.io/zone",
               "mismatchLabelKeys": ["/simple"]
             }
           ]
         }
       })json",
       {"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].mismatchLabelKeys[0]: "
        "Invalid value: \"/simple\": prefix part must be non-empty"}},
      {"TestValidatePod/invalid soft pod anti-affinity, key in MismatchLabelKeys isn't correctly defined",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "labelSelector": {
                   "matchExpressions": [{"key": "key", "operator": "NotIn", "values": ["value1", "value2"]}]
                 },
                 "topologyKey": "k8s.io/zone",
                 "mismatchLabelKeys": ["/simple"]
               }
             }
           ]
         }
       })json",
       {"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "mismatchLabelKeys[0]: Invalid value: \"/simple\": prefix part must be non-empty"}},
      {"TestValidatePod/invalid hard pod anti-affinity, key in MismatchLabelKeys isn't correctly defined",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "labelSelector": {
                 "matchExpressions": [{"key": "key", "operator": "NotIn", "values": ["value1", "value2"]}]
               },
               "topologyKey": "k8s.io/zone",
               "mismatchLabelKeys": ["/simple"]
             }
           ]
         }
       })json",
       {"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
        "mismatchLabelKeys[0]: Invalid value: \"/simple\": prefix part must be non-empty"}},
      {"TestValidatePod/invalid soft pod affinity, key exists in both matchLabelKeys and labelSelector",
       R"json(
       "affinity": {
         "podAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "labelSelector": {
                   "matchExpressions": [
                     {"key": "key", "operator": "In", "values": ["value1"]},
                     {"key": "key", "operator": "NotIn", "values": ["value2"]}
                   ]
                 },
                 "topologyKey": "k8s.io/zone",
                 "matchLabelKeys": ["key"]
               }
             }
           ]
         }
       })json",
       {"spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm[0]: "
        "Invalid value: \"key\": exists in both matchLabelKeys and labelSelector"}},
      {"TestValidatePod/invalid hard pod affinity, key exists in both matchLabelKeys and labelSelector",
       R"json(
       "affinity": {
         "podAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "labelSelector": {
                 "matchExpressions": [
                   {"key": "key", "operator": "In", "values": ["value1"]},
                   {"key": "key", "operator": "NotIn", "values": ["value2"]}
                 ]
               },
               "topologyKey": "k8s.io/zone",
               "matchLabelKeys": ["key"]
             }
           ]
         }
       })json",
       {"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0][0]: Invalid value: "
        "\"key\": exists in both matchLabelKeys and labelSelector"}},
      {"TestValidatePod/invalid soft pod anti-affinity, key exists in both matchLabelKeys and labelSelector",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "labelSelector": {
                   "matchExpressions": [
                     {"key": "key", "operator": "In", "values": ["value1"]},
                     {"key": "key", "operator": "NotIn", "values": ["value2"]}
                   ]
                 },
                 "topologyKey": "k8s.io/zone",
                 "matchLabelKeys": ["key"]
               }
             }
           ]
         }
       })json",
       {"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
        "podAffinityTerm[0]: Invalid value: \"key\": exists in both matchLabelKeys and labelSelector"}},
      {"TestValidatePod/invalid hard pod anti-affinity, key exists in both matchLabelKeys and labelSelector",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "labelSelector": {
                 "matchExpressions": [
                   {"key": "key", "operator": "In", "values": ["value1"]},
                   {"key": "key", "operator": "NotIn", "values": ["value2"]}
                 ]
               },
               "topologyKey": "k8s.io/zone",
               "matchLabelKeys": ["key"]
             }
           ]
         }
       })json",
       {"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0][0]: Invalid "
        "value: \"key\": exists in both matchLabelKeys and labelSelector"}},
      {"TestValidatePod/invalid soft pod affinity, key exists in both MatchLabelKeys and MismatchLabelKeys",
       R"json(
       "affinity": {
         "podAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "labelSelector": {
                   "matchExpressions": [{"key": "key", "operator": "NotIn", "values": ["value1", "value2"]}]
                 },
                 "topologyKey": "k8s.io/zone",
                 "matchLabelKeys": ["samekey"],
                 "mismatchLabelKeys": ["samekey"]
               }
             }
           ]
         }
       })json",
       {"spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "matchLabelKeys[0]: Invalid value: \"samekey\": exists in both matchLabelKeys and "
        "mismatchLabelKeys"}},
      {"TestValidatePod/invalid hard pod affinity, key exists in both MatchLabelKeys and MismatchLabelKeys",
       R"json(
       "affinity": {
         "podAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "labelSelector": {
                 "matchExpressions": [{"key": "key", "operator": "NotIn", "values": ["value1", "value2"]}]
               },
               "topologyKey": "k8s.io/zone",
               "matchLabelKeys": ["samekey"],
               "mismatchLabelKeys": ["samekey"]
             }
           ]
         }
       })json",
       {"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys[0]: "
        "Invalid value: \"samekey\": exists in both matchLabelKeys and mismatchLabelKeys"}},
      {"TestValidatePod/invalid soft pod anti-affinity, key exists in both MatchLabelKeys and "
       "MismatchLabelKeys",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "labelSelector": {
                   "matchExpressions": [{"key": "key", "operator": "NotIn", "values": ["value1", "value2"]}]
                 },
                 "topologyKey": "k8s.io/zone",
                 "matchLabelKeys": ["samekey"],
                 "mismatchLabelKeys": ["samekey"]
               }
             }
           ]
         }
       })json",
       {"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "matchLabelKeys[0]: Invalid value: \"samekey\": exists in both matchLabelKeys and "
        "mismatchLabelKeys"}},
      {"TestValidatePod/invalid hard pod anti-affinity, key exists in both MatchLabelKeys and "
       "MismatchLabelKeys",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "labelSelector": {
                 "matchExpressions": [{"key": "key", "operator": "NotIn", "values": ["value1", "value2"]}]
               },
               "topologyKey": "k8s.io/zone",
               "matchLabelKeys": ["samekey"],
               "mismatchLabelKeys": ["samekey"]
             }
           ]
         }
       })json",
       {"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
        "matchLabelKeys[0]: Invalid value: \"samekey\": exists in both matchLabelKeys and "
        "mismatchLabelKeys"}},
      {"TestValidatePod/invalid required node affinity, value of NodeSelectorRequirement should be a valid "
       "label value",
       R"json(
       "affinity": {
         "nodeAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": {
             "nodeSelectorTerms": [
               {"matchExpressions": [{"key": "foo", "operator": "In", "values": ["-1"]}]}
             ]
           }
         }
       })json",
       {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
        "matchExpressions[0].values[0]: Invalid value: \"-1\": a valid label must be an empty string or "
        "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"}},
      {"TestValidatePodSpec/populate Affinity",
       R"json(
       "affinity": {
         "nodeAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": {
             "nodeSelectorTerms": [
               {
                 "matchExpressions": [{"key": "key2", "operator": "In", "values": ["value1", "value2"]}],
                 "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["host1"]}]
               }
             ]
           },
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "preference": {"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar"]}]}
             }
           ]
         }
       })json",
       {}},
  };
  run(cases);
}

TEST(PodValidationTest, ValidateTopologySpreadConstraints) {
  const std::vector<Case> cases = {
      {"all required fields ok",
       R"json(
       "topologySpreadConstraints": [
         {"maxSkew": 1, "topologyKey": "k8s.io/zone", "whenUnsatisfiable": "DoNotSchedule", "minDomains": 3}
       ])json",
       {}},
      {"missing MaxSkew",
       R"json(
       "topologySpreadConstraints": [
         {"maxSkew": 0, "topologyKey": "k8s.io/zone", "whenUnsatisfiable": "DoNotSchedule"}
       ])json",
       {"spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero"}},
      {"negative MaxSkew",
       R"json(
       "topologySpreadConstraints": [
         {"maxSkew": -1, "topologyKey": "k8s.io/zone", "whenUnsatisfiable": "DoNotSchedule"}
       ])json",
       {"spec.topologySpreadConstraints[0].maxSkew: Invalid value: -1: must be greater than zero"}},
      {"can use MinDomains with ScheduleAnyway, when MinDomains = nil",
       R"json(
       "topologySpreadConstraints": [
         {"maxSkew": 1, "topologyKey": "k8s.io/zone", "whenUnsatisfiable": "ScheduleAnyway"}
       ])json",
       {}},
      {"negative minDomains is invalid",
       R"json(
       "topologySpreadConstraints": [
         {
           "maxSkew": 1,
           "topologyKey": "k8s.io/zone",
           "whenUnsatisfiable": "DoNotSchedule",
           "minDomains": -1
         }
       ])json",
       {"spec.topologySpreadConstraints[0].minDomains: Invalid value: -1: must be greater than zero"}},
      {"cannot use non-nil MinDomains with ScheduleAnyway",
       R"json(
       "topologySpreadConstraints": [
         {
           "maxSkew": 1,
           "topologyKey": "k8s.io/zone",
           "whenUnsatisfiable": "ScheduleAnyway",
           "minDomains": 10
         }
       ])json",
       {"spec.topologySpreadConstraints[0].minDomains: Invalid value: 10: can only use minDomains if "
        "whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"}},
      {"use negative MinDomains with ScheduleAnyway(invalid)",
       R"json(
       "topologySpreadConstraints": [
         {
           "maxSkew": 1,
           "topologyKey": "k8s.io/zone",
           "whenUnsatisfiable": "ScheduleAnyway",
           "minDomains": -1
         }
       ])json",
       {"spec.topologySpreadConstraints[0].minDomains: Invalid value: -1: must be greater than zero",
        "spec.topologySpreadConstraints[0].minDomains: Invalid value: -1: can only use minDomains if "
        "whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"}},
      {"missing TopologyKey",
       R"json(
       "topologySpreadConstraints": [
         {"maxSkew": 1, "topologyKey": "", "whenUnsatisfiable": "DoNotSchedule"}
       ])json",
       {"spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty"}},
      {"missing scheduling mode",
       R"json(
       "topologySpreadConstraints": [
         {"maxSkew": 1, "topologyKey": "k8s.io/zone", "whenUnsatisfiable": ""}
       ])json",
       {"spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"\": supported values: "
        "\"DoNotSchedule\", \"ScheduleAnyway\""}},
      {"unsupported scheduling mode",
       R"json(
       "topologySpreadConstraints": [
         {"maxSkew": 1, "topologyKey": "k8s.io/zone", "whenUnsatisfiable": "N/A"}
       ])json",
       {"spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"N/A\": supported "
        "values: \"DoNotSchedule\", \"ScheduleAnyway\""}},
      {"multiple constraints ok with all required fields",
       R"json(
       "topologySpreadConstraints": [
         {"maxSkew": 1, "topologyKey": "k8s.io/zone", "whenUnsatisfiable": "DoNotSchedule"},
         {"maxSkew": 2, "topologyKey": "k8s.io/node", "whenUnsatisfiable": "ScheduleAnyway"}
       ])json",
       {}},
      {"multiple constraints missing TopologyKey on partial ones",
       R"json(
       "topologySpreadConstraints": [
         {"maxSkew": 1, "topologyKey": "", "whenUnsatisfiable": "ScheduleAnyway"},
         {"maxSkew": 2, "topologyKey": "k8s.io/zone", "whenUnsatisfiable": "DoNotSchedule"}
       ])json",
       {"spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty"}},
      {"duplicate constraints",
       R"json(
       "topologySpreadConstraints": [
         {"maxSkew": 1, "topologyKey": "k8s.io/zone", "whenUnsatisfiable": "DoNotSchedule"},
         {"maxSkew": 2, "topologyKey": "k8s.io/zone", "whenUnsatisfiable": "DoNotSchedule"}
       ])json",
       {"spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "
        "\"{k8s.io/zone, DoNotSchedule}\""}},
      {"supported policy name set on NodeAffinityPolicy and NodeTaintsPolicy",
       R"json(
       "topologySpreadConstraints": [
         {
           "maxSkew": 1,
           "topologyKey": "k8s.io/zone",
           "whenUnsatisfiable": "DoNotSchedule",
           "nodeAffinityPolicy": "Honor",
           "nodeTaintsPolicy": "Ignore"
         }
       ])json",
       {}},
      {"unsupported policy name set on NodeAffinityPolicy",
       R"json(
       "topologySpreadConstraints": [
         {
           "maxSkew": 1,
           "topologyKey": "k8s.io/zone",
           "whenUnsatisfiable": "DoNotSchedule",
           "nodeAffinityPolicy": "Unknown",
           "nodeTaintsPolicy": "Ignore"
         }
       ])json",
       {"spec.topologySpreadConstraints[0].nodeAffinityPolicy: Unsupported value: \"Unknown\": supported "
        "values: \"Honor\", \"Ignore\""}},
      {"unsupported policy name set on NodeTaintsPolicy",
       R"json(
       "topologySpreadConstraints": [
         {
           "maxSkew": 1,
           "topologyKey": "k8s.io/zone",
           "whenUnsatisfiable": "DoNotSchedule",
           "nodeAffinityPolicy": "Honor",
           "nodeTaintsPolicy": "Unknown"
         }
       ])json",
       {"spec.topologySpreadConstraints[0].nodeTaintsPolicy: Unsupported value: \"Unknown\": supported "
        "values: \"Honor\", \"Ignore\""}},
      {"key in MatchLabelKeys isn't correctly defined",
       R"json(
       "topologySpreadConstraints": [
         {
           "maxSkew": 1,
           "topologyKey": "k8s.io/zone",
           "whenUnsatisfiable": "DoNotSchedule",
           "labelSelector": {},
           "matchLabelKeys": ["/simple"]
         }
       ])json",
       {"spec.topologySpreadConstraints[0].matchLabelKeys[0]: Invalid value: \"/simple\": prefix part must "
        "be non-empty"}},
      {"key exists in both MatchLabelKeys and LabelSelector",
       R"json(
       "topologySpreadConstraints": [
         {
           "maxSkew": 1,
           "topologyKey": "k8s.io/zone",
           "whenUnsatisfiable": "DoNotSchedule",
           "labelSelector": {
             "matchExpressions": [
               {"key": "foo", "operator": "NotIn", "values": ["value1"]},
               {"key": "foo", "operator": "NotIn", "values": ["value2", "value3"]}
             ]
           },
           "matchLabelKeys": ["foo"]
         }
       ])json",
       {"spec.topologySpreadConstraints[0][0]: Invalid value: \"foo\": exists in both matchLabelKeys and "
        "labelSelector"}},
      {"key in MatchLabelKeys is forbidden to be specified when LabelSelector is not set",
       R"json(
       "topologySpreadConstraints": [
         {
           "maxSkew": 1,
           "topologyKey": "k8s.io/zone",
           "whenUnsatisfiable": "DoNotSchedule",
           "matchLabelKeys": ["foo"]
         }
       ])json",
       {"spec.topologySpreadConstraints[0].matchLabelKeys: Forbidden: must not be specified when "
        "labelSelector is not set"}},
      {"invalid MatchLabels set on LabelSelector when AllowInvalidTopologySpreadConstraintLabelSelector is "
       "false",
       R"json(
       "topologySpreadConstraints": [
         {
           "maxSkew": 1,
           "topologyKey": "k8s.io/zone",
           "whenUnsatisfiable": "DoNotSchedule",
           "labelSelector": {"matchLabels": {"NoUppercaseOrSpecialCharsLike=Equals": "foo"}}
         }
       ])json",
       {"spec.topologySpreadConstraints[0].labelSelector.matchLabels: Invalid value: "
        "\"NoUppercaseOrSpecialCharsLike=Equals\": name part must consist of alphanumeric characters, '-', "
        "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
        "or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}},
      {"valid MatchLabels set on LabelSelector when AllowInvalidTopologySpreadConstraintLabelSelector is "
       "false",
       R"json(
       "topologySpreadConstraints": [
         {
           "maxSkew": 1,
           "topologyKey": "k8s.io/zone",
           "whenUnsatisfiable": "DoNotSchedule",
           "labelSelector": {"matchLabels": {"foo": "foo"}}
         }
       ])json",
       {}},
      {"invalid MatchLabelKeys when OldPodViolatesMatchLabelKeysValidation is false",
       R"json(
       "topologySpreadConstraints": [
         {
           "maxSkew": 1,
           "topologyKey": "k8s.io/zone",
           "whenUnsatisfiable": "DoNotSchedule",
           "labelSelector": {
             "matchExpressions": [
               {"key": "foo", "operator": "NotIn", "values": ["value1"]},
               {"key": "foo", "operator": "NotIn", "values": ["value2", "value3"]}
             ]
           },
           "matchLabelKeys": ["foo"]
         }
       ])json",
       {"spec.topologySpreadConstraints[0][0]: Invalid value: \"foo\": exists in both matchLabelKeys and "
        "labelSelector"}},
      {"valid MatchLabelKeys when OldPodViolatesMatchLabelKeysValidation is false",
       R"json(
       "topologySpreadConstraints": [
         {
           "maxSkew": 1,
           "topologyKey": "k8s.io/zone",
           "whenUnsatisfiable": "DoNotSchedule",
           "labelSelector": {
             "matchExpressions": [{"key": "foo", "operator": "NotIn", "values": ["value1"]}]
           },
           "matchLabelKeys": ["foo"]
         }
       ])json",
       {}},
  };
  run(cases);
}

// Beyond upstream's tables: the texts of errors upstream's tables only match by type, several errors per
// field, value quoting, and the order of affinity and spread errors.
TEST(PodValidationTest, MessagesAndOrder) {
  const std::vector<Case> cases = {
      {"every spread field invalid",
       R"json(
       "topologySpreadConstraints": [
         {"maxSkew": 0, "topologyKey": "", "whenUnsatisfiable": "Sometimes", "nodeAffinityPolicy": "Foo"}
       ])json",
       {"spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero",
        "spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty",
        "spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"Sometimes\": supported "
        "values: \"DoNotSchedule\", \"ScheduleAnyway\"",
        "spec.topologySpreadConstraints[0].nodeAffinityPolicy: Unsupported value: \"Foo\": supported "
        "values: \"Honor\", \"Ignore\""}},
      {"second constraint: minDomains with ScheduleAnyway, unknown nodeTaintsPolicy",
       R"json(
       "topologySpreadConstraints": [
         {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
         {
           "maxSkew": 2,
           "topologyKey": "zone",
           "whenUnsatisfiable": "ScheduleAnyway",
           "minDomains": 0,
           "nodeTaintsPolicy": "honor"
         }
       ])json",
       {"spec.topologySpreadConstraints[1].minDomains: Invalid value: 0: must be greater than zero",
        "spec.topologySpreadConstraints[1].minDomains: Invalid value: 0: can only use minDomains if "
        "whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
        "spec.topologySpreadConstraints[1].nodeTaintsPolicy: Unsupported value: \"honor\": supported "
        "values: \"Honor\", \"Ignore\""}},
      {"preferred pod affinity with weight 1000 and an empty topologyKey",
       R"json(
       "affinity": {
         "podAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 1000,
               "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": ""}
             }
           ]
         }
       })json",
       {"spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid "
        "value: 1000: must be in the range 1-100",
        "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "topologyKey: Required value: can not be empty",
        "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "topologyKey: Invalid value: \"\": name part must be non-empty",
        "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "topologyKey: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or "
        "'.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
        "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}},
      {"required anti-affinity: namespace with dots, invalid topologyKey",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {"labelSelector": {}, "namespaces": ["team.a", "Team-B"], "topologyKey": "zone/"}
           ]
         }
       })json",
       {"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespace: "
        "Invalid value: \"team.a\": must not contain dots",
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespace: "
        "Invalid value: \"Team-B\": a lowercase RFC 1123 label must consist of lower case alphanumeric "
        "characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
        "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
        "Invalid value: \"zone/\": name part must be non-empty",
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
        "Invalid value: \"zone/\": name part must consist of alphanumeric characters, '-', '_' or '.', and "
        "must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
        "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}},
      {"unknown selector operator is JSON-quoted",
       R"json(
       "affinity": {
         "podAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "labelSelector": {
                 "matchExpressions": [{"key": "app", "operator": "<In>", "values": ["web"]}]
               },
               "topologyKey": "zone"
             }
           ]
         }
       })json",
       {"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector."
        "matchExpressions[0].operator: Invalid value: \"\\u003cIn\\u003e\": not a valid selector operator"}},
      {"matchLabelKeys key already in the selector's matchLabels and merged into matchExpressions",
       R"json(
       "affinity": {
         "podAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "labelSelector": {
                 "matchLabels": {"app": "web"},
                 "matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]
               },
               "topologyKey": "zone",
               "matchLabelKeys": ["tier", "app"]
             }
           ]
         }
       })json",
       {"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0][1]: Invalid value: "
        "\"app\": exists in both matchLabelKeys and labelSelector"}},
      {"matchLabelKeys and mismatchLabelKeys without a labelSelector",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 10,
               "podAffinityTerm": {
                 "topologyKey": "zone",
                 "matchLabelKeys": ["app"],
                 "mismatchLabelKeys": ["app"]
               }
             }
           ]
         }
       })json",
       {"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "matchLabelKeys: Forbidden: must not be specified when labelSelector is not set",
        "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "mismatchLabelKeys: Forbidden: must not be specified when labelSelector is not set",
        "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
        "matchLabelKeys[0]: Invalid value: \"app\": exists in both matchLabelKeys and mismatchLabelKeys"}},
      {"node affinity: Gt with two values, Lt with a non-integer, unknown operator, bad node name",
       R"json(
       "affinity": {
         "nodeAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": {
             "nodeSelectorTerms": [
               {
                 "matchExpressions": [
                   {"key": "cpu", "operator": "Gt", "values": ["1", "2"]},
                   {"key": "mem", "operator": "Lt", "values": ["abc"]},
                   {"key": "zone", "operator": "Foo"}
                 ],
                 "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["Node_1"]}]
               }
             ]
           },
           "preferredDuringSchedulingIgnoredDuringExecution": [
             {
               "weight": 0,
               "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["-bad-"]}]}
             }
           ]
         }
       })json",
       {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
        "matchExpressions[0].values: Required value: must be specified single value when `operator` is "
        "'Lt' or 'Gt'",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
        "matchExpressions[2].operator: Invalid value: \"Foo\": not a valid selector operator",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
        "matchFields[0].values[0]: Invalid value: \"Node_1\": a lowercase RFC 1123 subdomain must consist "
        "of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid "
        "value: 0: must be in the range 1-100"}},
      {"affinity errors come before spread errors",
       R"json(
       "affinity": {
         "podAntiAffinity": {
           "requiredDuringSchedulingIgnoredDuringExecution": [
             {
               "topologyKey": "zone",
               "namespaceSelector": {
                 "matchExpressions": [{"key": "team", "operator": "Exists", "values": ["a"]}]
               }
             }
           ]
         }
       },
       "topologySpreadConstraints": [
         {
           "maxSkew": 1,
           "topologyKey": "zone",
           "whenUnsatisfiable": "DoNotSchedule",
           "labelSelector": {"matchLabels": {"app": "-web"}}
         }
       ])json",
       {"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaceSelector."
        "matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or "
        "'DoesNotExist'",
        "spec.topologySpreadConstraints[0].labelSelector.matchLabels: Invalid value: \"-web\": a valid "
        "label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
        "used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"}},
  };
  run(cases);
}

TEST(PodValidationTest, ValidPodHasNoErrors) {
  EXPECT_TRUE(validatePodSchedulingConstraints(Pod{}).empty());
}

TEST(PodValidationTest, PartsTakeTheirPath) {
  Affinity affinity;
  affinity.podAffinity.emplace().requiredDuringSchedulingIgnoredDuringExecution.push_back(
      PodAffinityTerm{.topologyKey = "zone", .matchLabelKeys = {"app"}});
  EXPECT_EQ(messages(validateAffinity(affinity, "template.spec.affinity")),
            std::vector<std::string>{
                "template.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution["
                "0].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set"});
  EXPECT_EQ(messages(validateTopologySpreadConstraints(
                {TopologySpreadConstraint{
                    .maxSkew = 1, .topologyKey = "zone", .whenUnsatisfiable = "DoNotSchedule"}},
                "constraints")),
            std::vector<std::string>{});
  EXPECT_EQ(messages(validateLabelSelector(LabelSelector{.matchLabels = {{"a/b/c", "v"}}}, "sel")),
            (std::vector<std::string>{
                "sel.matchLabels: Invalid value: \"a/b/c\": a qualified name must consist of "
                "alphanumeric characters, '-', '_' or '.', and must start and end with an "
                "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
                "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional "
                "DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}));
  EXPECT_TRUE(validateLabelSelector(std::nullopt, "sel").empty());
  EXPECT_EQ(validateLabelName("ok.example/key", "k").size(), 0u);
}

}  // namespace
}  // namespace ks::api
