#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Turn the kernel tarball into a git repository with the series applied as
# commits, so patches are changed by editing commits (then `make export`).
# Identity and dates are fixed, so the same series gives the same hashes and
# an export round-trips byte for byte.
#
#   git-tree.sh TARBALL DIR SERIES_DIR:TAG...
set -eu

tarball=$1
dir=$2
shift 2

die() {
	echo "git-tree: $*" >&2
	exit 1
}

pkg=$(basename "$tarball" .tar.xz)
[ -f "$tarball" ] || die "$tarball: no such file (make deps installs $pkg)"
[ ! -e "$dir" ] || die "$dir exists and may hold commits not exported yet;" \
	"run make export, then remove it to start over"

export GIT_AUTHOR_NAME="stayawake developers"
export GIT_AUTHOR_EMAIL="dev@stayawake.invalid"
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME"
export GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"

parent=$(dirname "$dir")
mkdir -p "$parent"
tmp=$(mktemp -d "$parent/.git-tree.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "  UNTAR   $tarball"
tar -xf "$tarball" -C "$tmp"
top=$(ls "$tmp")
mv "$tmp/$top" "$dir"

cd "$dir"
# Debian's .gitignore ignores the whole top level (its packaging repo).
sed -i '/^# Debian packaging: ignore everything/,/^!\/debian\/$/d' .gitignore
git init -q
git config user.name "$GIT_AUTHOR_NAME"
git config user.email "$GIT_AUTHOR_EMAIL"
# Index lines of the same length however many objects the tree holds
git config core.abbrev 12
git add -A
version=$(make -s kernelversion)
GIT_AUTHOR_DATE="2026-12-03T00:00:00Z" GIT_COMMITTER_DATE="2026-12-03T00:00:00Z" \
	git commit -q -m "Linux $version (Debian $pkg)"
git tag base
echo "  COMMIT  base: Linux $version"

for spec in "$@"; do
	series=${spec%%:*}
	tag=${spec#*:}
	case "$series" in /*) ;; *) series=$OLDPWD/$series ;; esac
	patches=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series/series" |
		  sed "s|^|$series/|")
	# shellcheck disable=SC2086 # one argument per patch
	git am -q --committer-date-is-author-date $patches ||
		die "git am of $series failed; the tree is left in $dir"
	git tag "$tag"
	echo "  AM      $(echo "$patches" | wc -l) patches from $series, tagged $tag"
done
echo "git-tree: $dir ready; edit commits (git rebase -i base), then make export"
