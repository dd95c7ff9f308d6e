#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unpack Debian's trinity and libc6 for DEB_ARCH into OUTDIR/root and write
# OUTDIR/list: gen_init_cpio lines that put trinity, its program
# interpreter and the libraries it needs into a guest initramfs. Debian's
# trinity is dynamically linked; the guest has no libc of its own.
#
#   fetch-trinity.sh DEB_ARCH OUTDIR
set -eu

arch=$1
out=$2
case $arch in
amd64) triplet=x86_64-linux-gnu ;;
arm64) triplet=aarch64-linux-gnu ;;
armhf) triplet=arm-linux-gnueabihf ;;
*) echo "fetch-trinity: no triplet for $arch" >&2; exit 2 ;;
esac

rm -rf "$out"
mkdir -p "$out/debs"
cd "$out/debs"
if ! apt-get download -q "trinity:$arch" "libc6:$arch" >/dev/null 2>&1; then
	apt-get update -qq
	apt-get download -q "trinity:$arch" "libc6:$arch" >/dev/null
fi
for d in *.deb; do
	dpkg -x "$d" "$out/root"
done
cd "$out"

# A path inside root, with the root's own symlinks followed (absolute ones
# too: they point into root, not into this host).
resolve() {
	p=$1
	n=0
	while [ -L "root$p" ] && [ $n -lt 10 ]; do
		t=$(readlink "root$p")
		case $t in
		/*) p=$t ;;
		*) p=$(dirname "$p")/$t ;;
		esac
		n=$((n + 1))
	done
	[ -f "root$p" ] || { echo "fetch-trinity: $1 not in the packages" >&2; exit 1; }
	echo "$p"
}

interp=$(readelf -l root/usr/bin/trinity |
	sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
[ -n "$interp" ] || { echo "fetch-trinity: trinity has no interpreter" >&2; exit 1; }

# Files for the guest: "GUEST_PATH HOST_PATH", libraries found by NEEDED.
echo "/usr/bin/trinity $out/root/usr/bin/trinity" >files
echo "$interp $out/root$(resolve "$interp")" >>files
todo=root/usr/bin/trinity
seen=" "
while [ -n "$todo" ]; do
	set -- $todo
	todo=""
	for elf in "$@"; do
		for lib in $(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case $seen in *" $lib "*) continue ;; esac
			seen="$seen$lib "
			real=$(resolve "/lib/$triplet/$lib")
			echo "/lib/$triplet/$lib $out/root$real" >>files
			todo="$todo root$real"
		done
	done
done

{
	echo "dir /usr 0755 0 0"
	echo "dir /usr/bin 0755 0 0"
	echo "dir /lib 0755 0 0"
	echo "dir /lib/$triplet 0755 0 0"
	case $interp in /lib64/*) echo "dir /lib64 0755 0 0" ;; esac
	echo "dir /etc 0755 0 0"
	sort -u files | while read -r guest host; do
		echo "file $guest $host 0755 0 0"
	done
} >list
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >passwd
echo "file /etc/passwd $out/passwd 0644 0 0" >>list
echo "trinity for $arch: $(ls debs | tr '\n' ' ')($(grep -c '^file' list) files)"
