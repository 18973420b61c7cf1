#!/usr/bin/env bash
# PoCL 5.0 (LLVM 16) on this machine, to check that its work-group compiler builds Duet's
# kernels (docs/design/checks.md, "PoCL 5.0's kernel compiler"). Debian has no PoCL 5.x any more
# (bookworm: 3.1, trixie: 6.0, sid: 7.x); Ubuntu 24.04 (noble) ships pocl 5.0-2.1 with LLVM 16.0.6
# and assertions on, the platform string the GPU machine reports ("PoCL 5.0+debian ... None+Asserts
# ... LLVM 16.0.6"). This script makes a noble chroot with it.
#
#   bash scripts/pocl5_chroot.sh setup          # debootstrap the chroot (3-6 min, ~800 MB)
#   bash scripts/pocl5_chroot.sh run CMD...     # CMD inside it, in this checkout (same path)
#   bash scripts/pocl5_chroot.sh check BUILD    # BUILD's runapp: matmul's steps on PoCL 5.0
#   bash scripts/pocl5_chroot.sh remove         # delete the chroot (only one this script made)
#
# Needs root, debootstrap (Debian package) and network to archive.ubuntu.com. Environment:
# POCL5_ROOT (default /var/tmp/duet-pocl5), POCL5_MIRROR (default http://archive.ubuntu.com/ubuntu).
# The runapp that `check` and `run` use is this machine's build: the chroot's libraries are newer
# (glibc 2.39, libstdc++ 14), so a binary built here runs there, against noble's libOpenCL and
# PoCL 5.0 (the chroot also gets the libraries runapp links: OpenBLAS, Open MPI). Not part of CI:
# setup takes minutes and the network, `check` 30-90 s on 2 cores.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
root=${POCL5_ROOT:-/var/tmp/duet-pocl5}
mirror=${POCL5_MIRROR:-http://archive.ubuntu.com/ubuntu}
marker=.duet-pocl5-chroot
# Ubuntu's archive keyring, pinned: the packages are then checked by debootstrap and apt.
keyring_deb=ubuntu-keyring_2023.11.28.1_all.deb
keyring_sha=36de43b15853ccae0028e9a767613770c704833f82586f28eb262f0311adb8a8

die() {
    echo "pocl5_chroot: $*" >&2
    exit 2
}

usage() {
    sed -n '2,/^[^#]/p' "${BASH_SOURCE[0]}" | grep '^#' | sed 's/^# \{0,1\}//' >&2
    exit 2
}

need_root() {
    [ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mount); run it as root"
}

# The chroot exists and this script made it (it deletes nothing it did not create).
ours() {
    [ -f "$root/$marker" ]
}

setup() {
    need_root
    if ours && [ -x "$root/usr/bin/clinfo" ]; then
        echo "pocl5_chroot: $root is ready" >&2
        return 0
    fi
    [ -e "$root" ] && ! ours && die "$root exists and was not made by this script; set POCL5_ROOT"
    command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap"
    local script=/usr/share/debootstrap/scripts/noble
    [ -e "$script" ] || script=/usr/share/debootstrap/scripts/gutsy # Ubuntu's, for older debootstraps
    local tmp
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    curl -fsS -m 120 -o "$tmp/$keyring_deb" "https://archive.ubuntu.com/ubuntu/pool/main/u/ubuntu-keyring/$keyring_deb" ||
        die "cannot download Ubuntu's keyring from archive.ubuntu.com"
    echo "$keyring_sha  $tmp/$keyring_deb" | sha256sum -c --quiet - || die "Ubuntu's keyring package has an unexpected checksum"
    dpkg-deb -x "$tmp/$keyring_deb" "$tmp/k"
    mkdir -p "$root"
    touch "$root/$marker"
    echo "pocl5_chroot: debootstrap noble into $root (a few minutes)" >&2
    debootstrap --variant=minbase --components=main,universe \
        --keyring="$tmp/k/usr/share/keyrings/ubuntu-archive-keyring.gpg" \
        --include=pocl-opencl-icd,clinfo,ocl-icd-libopencl1,libopenblas0-pthread,libopenmpi3t64 noble "$root" "$mirror" "$script" >&2 ||
        die "debootstrap failed (its log: $root/debootstrap/debootstrap.log)"
    touch "$root/$marker"
    chroot "$root" dpkg-query -W pocl-opencl-icd libllvm16t64 >&2
}

# Runs "$@" inside the chroot with /proc, /sys (hwloc reads the CPU topology there) and this
# checkout mounted, in the checkout's directory; unmounts on the way out.
mounted=()
unmount_all() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}" || true; done
    mounted=()
}

in_chroot() {
    need_root
    ours && [ -x "$root/usr/bin/clinfo" ] || die "no chroot at $root: run '$0 setup' first"
    trap unmount_all EXIT
    mountpoint -q "$root/proc" || { mount -t proc proc "$root/proc" && mounted+=("$root/proc"); }
    mountpoint -q "$root/sys" || { mount -t sysfs sysfs "$root/sys" && mounted+=("$root/sys"); }
    mkdir -p "$root$here"
    mountpoint -q "$root$here" || { mount --bind "$here" "$root$here" && mounted+=("$root$here"); }
    local rc=0
    chroot "$root" /usr/bin/env -C "$here" HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@" || rc=$?
    unmount_all
    return $rc
}

# matmul's register steps (and the rest of the ladder) through runapp on PoCL 5.0, checked
# against the CPU reference, at sizes with and without multiples of 4 (both load paths).
check() {
    local build=${1:-}
    [ -n "$build" ] || die "check needs a build directory (with apps/runapp/runapp)"
    build=$(cd "$build" && pwd)
    local runapp
    runapp=$(find "$build" -name runapp -type f -perm -u+x | head -n1)
    [ -n "$runapp" ] || die "no runapp under $build: cmake --build $build --target runapp"
    case "$build" in "$here"/*) ;; *) die "$build is not inside $here (the chroot sees only this checkout)" ;; esac
    # A fresh program cache (removed after) and no PoCL cache: every kernel is compiled.
    local cache
    cache=$(mktemp -d "$build/pocl5-cache.XXXXXX")
    in_chroot clinfo -l
    local size rc=0
    for size in 129x65x257 64x64x64 37x53x29; do
        in_chroot env POCL_KERNEL_CACHE=0 DUET_CACHE_DIR="$cache" "$runapp" run matmul \
            --variant reg4x4,reg8x8 --device opencl --size "$size" --reps 2 || rc=1
    done
    in_chroot env POCL_KERNEL_CACHE=0 DUET_CACHE_DIR="$cache" "$runapp" run matmul --device opencl \
        --size 129x65x257 --reps 1 || rc=1
    rm -rf "$cache"
    return $rc
}

remove() {
    need_root
    [ -e "$root" ] || return 0
    ours || die "$root was not made by this script; not removing it"
    for m in "$root$here" "$root/sys" "$root/proc"; do
        mountpoint -q "$m" && die "$m is still mounted; unmount it first"
    done
    rm -rf --one-file-system "$root"
}

[ $# -gt 0 ] || usage
cmd=$1
shift
case "$cmd" in
    setup) setup ;;
    run) [ $# -gt 0 ] || usage; in_chroot "$@" ;;
    check) check "$@" ;;
    remove) remove ;;
    -h | --help) usage ;;
    *) usage ;;
esac
