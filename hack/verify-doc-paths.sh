#!/usr/bin/env bash
# verify-doc-paths: every repository path the documentation names in
# backquotes (`examples/foo/table.go`, `fixture/`) exists, so that the docs
# point at the files that really hold what they describe.
set -euo pipefail
cd "$(dirname "$0")/.."
rc=0
while IFS=: read -r file path; do
	path="${path//\`/}"
	path="${path%/...}"
	if [ ! -e "$path" ]; then
		echo "verify-doc-paths: $file names $path, which does not exist"
		rc=1
	fi
done < <(grep -o '`\(actions\|controller\|crd\|ctrlruntime\|docs\|examples\|fixture\|golden\|hack\|internal\|kube\|parity\|tbtest\)/[A-Za-z0-9_./-]*`' README.md docs/*.md | sort -u)
exit $rc
