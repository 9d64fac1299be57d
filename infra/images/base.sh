#!/usr/bin/env bash
# Builds a local equivalent of the official node:24-bookworm-slim image for machines that reach
# no container registry: a Debian minbase root filesystem (debootstrap, from the mirror apt
# already uses) plus the Node binary of the npm registry's node-linux-<arch> package (the same
# one scripts/toolchain.sh installs), imported as an image. Called by build.sh; idempotent.
#
#   infra/images/base.sh <engine> <image-tag>
#
# Trimmed below the slim image (see PURGE); a "node" user (uid 1000) as in the official image.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

ENGINE=${1:?usage: base.sh <podman|docker> <image-tag>}
TAG=${2:?usage: base.sh <podman|docker> <image-tag>}

if "$ENGINE" image exists "$TAG" 2>/dev/null || "$ENGINE" image inspect "$TAG" >/dev/null 2>&1; then
  log "base image $TAG present"
  exit 0
fi

need() { # <command> <debian-package>
  command -v "$1" >/dev/null 2>&1 && return
  apt_install "$2"
}
need debootstrap debootstrap
need strip binutils

# The mirror and release apt uses here (deb822 sources first, then the one-line format).
MIRROR=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[[ -n "$MIRROR" ]] || MIRROR=$(awk '$1 == "deb" && $2 ~ /debian\/?$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SUITE=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")

WORK="$LOCAL_DIR/images/base"
ROOTFS="$WORK/rootfs"
# debootstrap mounts /proc (and more) inside the tree: never delete through a live mount.
unmount_tree() { findmnt -rn -o TARGET | grep "^$ROOTFS/" | sort -r | xargs -r -n1 umount -l || true; }
trap unmount_tree EXIT
unmount_tree
rm -rf "$ROOTFS" && mkdir -p "$WORK"
log "debootstrap --variant=minbase $SUITE from $MIRROR (a few minutes)"
debootstrap --variant=minbase --include=ca-certificates "$SUITE" "$ROOTFS" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
  die "debootstrap failed, see $WORK/debootstrap.log"

# Node: the toolchain's copy when it is the pinned version, else the registry tarball.
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) die "unsupported CPU architecture: $(uname -m)" ;;
esac
NODE_BIN="$ROOT/.toolchain/node/bin/node"
if [[ ! -x "$NODE_BIN" || "$("$NODE_BIN" --version)" != "v$NODE_VERSION" ]]; then
  REGISTRY="${npm_config_registry:-https://registry.npmjs.org}"
  log "downloading node-linux-$arch@$NODE_VERSION from $REGISTRY"
  curl -fsSL --retry 3 -o "$WORK/node.tgz" "${REGISTRY%/}/node-linux-$arch/-/node-linux-$arch-$NODE_VERSION.tgz"
  mkdir -p "$WORK/node" && tar -xzf "$WORK/node.tgz" -C "$WORK/node" --strip-components=1
  NODE_BIN="$WORK/node/bin/node"
fi
# Each trimming step logs the tree's size, so what it saves stays visible in the build output.
measure() { log "rootfs $(du -s --apparent-size --block-size=1000000 "$ROOTFS" | cut -f1) MB: $1"; }
measure "debootstrap minbase"
install -m 0755 "$NODE_BIN" "$ROOTFS/usr/local/bin/node"
# The registry's binary carries debug info (~13 MB); the official image ships it stripped.
strip "$ROOTFS/usr/local/bin/node"
measure "plus the stripped node binary"

# A runtime base, smaller than the slim image (the service images must stay under 200 MB): what
# runs Node and the build stage's shell steps stays (libc, libstdc++, coreutils, dash, tar, gzip,
# findutils, sed, grep, ca-certificates, dpkg's database for vulnerability scanners); the package
# manager, the system administration tools, bash, PAM, OpenSSL (Node links its own) and tzdata
# (Node's ICU carries the time zone rules) go, with documentation, locales and iconv modules.
# Extend an image by building FROM the official image instead (BASE_IMAGE), not by apt-get in this one.
PURGE=(apt libapt-pkg6.0 gpgv libgnutls30 libdb5.3 libunistring2 libgcrypt20 libp11-kit0 libhogweed6 libnettle8
  libtasn1-6 libidn2-0 libgmp10 libgpg-error0 libsystemd0 libudev1 libseccomp2 libxxhash0 liblz4-1 libzstd1
  libsemanage2 libsemanage-common libsepol2 libaudit1 libaudit-common libcap-ng0 libbz2-1.0 e2fsprogs libext2fs2
  libss2 libcom-err2 logsave util-linux util-linux-extra libblkid1 libmount1 libsmartcols1 libuuid1 bsdutils
  login passwd libpam-runtime libpam-modules libpam-modules-bin libpam0g openssl libssl3 mount
  sysvinit-utils init-system-helpers libfdisk1 libffi8 adduser debian-archive-keyring bash ncurses-bin libtinfo6
  tzdata)
# debconf (and the perl it runs on) last: the purge scripts of tzdata and PAM still call it; diff
# too, since dpkg refuses to start without it.
{ chroot "$ROOTFS" dpkg --purge --force-remove-essential --force-depends "${PURGE[@]}" &&
  chroot "$ROOTFS" dpkg --purge --force-remove-essential --force-depends debconf perl-base diffutils; } >"$WORK/purge.log" 2>&1 ||
  die "purging the package manager from the base failed, see $WORK/purge.log"
measure "packages purged"
rm -rf "$ROOTFS"/usr/share/{doc,man,info,locale,lintian,i18n,bash-completion,gdb,gcc}/* "$ROOTFS"/var/lib/apt \
  "$ROOTFS"/var/cache/apt "$ROOTFS"/var/cache/debconf "$ROOTFS"/var/cache/ldconfig "$ROOTFS"/usr/lib/*-linux-gnu/gconv \
  "$ROOTFS"/var/log/* "$ROOTFS"/tmp/* "$ROOTFS"/etc/apt
measure "documentation, locales, iconv modules, apt and debconf leftovers removed"
# No bash: root's login shell is dash (also the image's /bin/sh).
sed -i 's#:/bin/bash$#:/bin/sh#' "$ROOTFS/etc/passwd"
[[ -x "$ROOTFS/bin/sh" && -x "$ROOTFS/usr/bin/env" ]] || die "the trimmed base lost /bin/sh or env"
chroot "$ROOTFS" /usr/local/bin/node --version >/dev/null || die "node does not run in the trimmed base"
# The official image's unprivileged user.
grep -q '^node:' "$ROOTFS/etc/group" || echo 'node:x:1000:' >>"$ROOTFS/etc/group"
grep -q '^node:' "$ROOTFS/etc/passwd" || echo 'node:x:1000:1000::/home/node:/bin/sh' >>"$ROOTFS/etc/passwd"
mkdir -p "$ROOTFS/home/node" && chown 1000:1000 "$ROOTFS/home/node"

unmount_tree
log "importing $TAG"
tar -C "$ROOTFS" --numeric-owner -cf - . |
  "$ENGINE" import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=$NODE_VERSION" \
    --change 'CMD ["node"]' \
    - "$TAG" >/dev/null
rm -rf "$ROOTFS"
log "base image $TAG built"
