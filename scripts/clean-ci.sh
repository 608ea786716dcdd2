#!/usr/bin/env bash
# Runs .ci/run the way CI does: on a fresh clone of the committed main, in a temporary folder,
# with CI=true and no standard input. Uncommitted work is not in it, on purpose.
# Usage: scripts/clean-ci.sh   (the clone is left in place afterwards, for a look at what failed)
set -eu
top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
dir=$(mktemp -d -t retryline-clean-ci.XXXXXX)
git clone -q --branch main "$top" "$dir/repo"
cd "$dir/repo"
echo "clean-ci: running .ci/run on main ($(git rev-parse --short HEAD)) in $dir/repo"
start=$(date +%s)
code=0
CI=true bash .ci/run </dev/null || code=$?
echo "clean-ci: exit $code after $(( $(date +%s) - start )) s"
exit $code
