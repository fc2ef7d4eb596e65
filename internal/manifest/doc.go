// Package manifest reads manifests/*.yaml and manifests/policy.yaml, checks
// them without touching the network, and reports every problem as
// file:line: message. The result is a Set: every source, sorted by
// jurisdiction then id, the policy, and the effective settings of each host.
package manifest

// The time zone database is embedded so that validation gives the same
// answer on every machine, including CI runners without /usr/share/zoneinfo.
import _ "time/tzdata"
