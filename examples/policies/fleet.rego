# One policy for a fleet of agents. Its `decision` is read exactly like a
# native hook's stdout object; undefined means continue.
#
# Evaluated in process by a `policy` hook (`query: data.agent.hooks.decision`),
# or served by OPA (`opa run --server examples/policies/fleet.rego`) and
# reached with an `http` hook of `protocol: opa` at
# http://OPA:8181/v1/data/agent/hooks/decision; both decide alike (docs/fleet.md,
# "Running a fleet").
package agent.hooks

import rego.v1

# Destructive shell commands are refused, for every agent alike.
decision := {
	"decision": "block",
	"reason": concat("", ["refused by the fleet policy: `", input.args.command, "`"]),
} if {
	input.phase == "before_tool"
	input.tool_name == "bash"
	startswith(input.args.command, "rm ")
}
