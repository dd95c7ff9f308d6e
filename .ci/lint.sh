#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lint the CI definitions with the tools pinned in .ci/package-lock.json.
#   .ci/lint.sh TOOLDIR            .gitlab-ci.yml and .github/workflows/*.yml
#   .ci/lint.sh TOOLDIR run JOB    then run JOB of .gitlab-ci.yml here, on
#                                  this host, with gitlab-ci-local's shell
#                                  executor (JOB's image: is ignored)
# TOOLDIR (make ci-lint: build/ci-tools) holds node_modules, outside the
# tracked files. Needs node >= 18 and npm; a run also git and rsync.
set -eu
usage() { echo "usage: $0 TOOLDIR [run JOB]" >&2; exit 2; }
[ $# = 1 ] || [ $# = 3 ] || usage
[ $# = 1 ] || [ "$2" = run ] || usage

mkdir -p "$1"
tools=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."

# npm ci installs exactly the lockfile, and only when it changed:
# a stamp, written after success, is the lockfile installed last.
if ! cmp -s .ci/package-lock.json "$tools/.installed-lock"; then
	cp .ci/package.json .ci/package-lock.json "$tools/"
	# --ignore-scripts: neither tool has an install script to run
	npm ci --prefix "$tools" --no-audit --no-fund --ignore-scripts
	cp .ci/package-lock.json "$tools/.installed-lock"
fi
bin=$tools/node_modules/.bin
# gitlab-ci-local's state (expanded file, job logs, a copy of the tracked
# files) goes to build/, which git ignores, not to .gitlab-ci-local/.
gcl() { "$bin/gitlab-ci-local" --cwd . --state-dir build/gitlab-ci-local "$@"; }

# --list parses the file, validates it against GitLab's schema and expands
# parallel:matrix; rc 1 on an error. Its table goes to stdout.
echo "lint: .gitlab-ci.yml"
gcl --list

# action-validator takes exactly one file per call.
for f in .github/workflows/*.yml; do
	[ -e "$f" ] || continue
	echo "lint: $f"
	"$bin/action-validator" "$f"
done

[ $# = 3 ] || exit 0
# The job runs in this checkout, as this user, on its working tree; it
# must be a git checkout (gitlab-ci-local reads git). rc 1 if it fails.
gcl --force-shell-executor "$3"
