#pragma once
// The holder identity kube-scheduler competes with: hostname + "_" + a random UUID, so two processes on
// one host never share an identity (cmd/kube-scheduler/app/options: makeLeaderElectionConfig).

#include <string>

namespace ks::leaderelection {

// A random (version 4, RFC 4122 variant) UUID, lower-case "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx".
std::string newUuidV4();

// gethostname() + "_" + newUuidV4().
std::string defaultIdentity();

}  // namespace ks::leaderelection
