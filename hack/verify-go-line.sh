#!/usr/bin/env bash
# verify-go-line: the go line of each module named (make verify-go-line
# names the core module and the Makefile's MODULES) must be the minimum
# the module's dependencies need — the highest go line among them — and not
# a later patch release, which would force every user to raise theirs.
set -euo pipefail
cd "$(dirname "$0")/.."
rc=0
[ $# -gt 0 ] || { echo "usage: $0 module-dir... (make verify-go-line names them)" >&2; exit 2; }
for dir in "$@"; do
	have="$(cd "$dir" && go mod edit -json | sed -n 's/^[[:space:]]*"Go": "\(.*\)",*$/\1/p')"
	need="$(cd "$dir" && go list -m -f '{{if not .Main}}{{.GoVersion}}{{end}}' all | sort -V | tail -1)"
	if [ "$have" != "$need" ]; then
		echo "verify-go-line: $dir/go.mod says 'go $have'; its dependencies need 'go $need' at least."
		echo "  Set it with: (cd $dir && go mod edit -go=$need && go mod tidy)"
		rc=1
	fi
done
exit $rc
