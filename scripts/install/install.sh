#!/bin/sh
# Installs ckg's executable for this machine from a release, checked against its ckg.sha256.
#
#   curl -fsSL <base>/install.sh | sh                      (or: sh install.sh [options])
#   sh install.sh --base-url https://host/ckg --version 0.2.0 --prefix /opt/ckg/bin
#
# A release is the dist/ folder of `npm run build -- --all`, published under <base>/<version>/:
#   <base>/<version>/<platform>/ckg          the executable
#   <base>/<version>/<platform>/ckg.sha256   its checksum, as sha256sum writes it ("<hex>  ckg")
# with <platform> one of linux-x64, linux-arm64, darwin-arm64, darwin-x64, and <version> a release
# (0.2.0) or "latest" (the default). scripts/install/release-files.ts writes a copy of this script
# with the release's base URL filled in below.
#
# The steps, each printed: pick the platform (uname), fetch ckg.sha256 then ckg into a private
# temporary folder, compare the SHA-256 of what came with the checksum, and only then copy the file
# beside its destination, make it executable and rename it into place (one step: an upgrade over a
# running ckg never leaves a half-written file). The downloaded file is never executable, and never
# run, before the check; a missing or unreadable checksum, or a mismatch, stops the script (exit 1)
# with nothing installed. Last, the installed ckg prints its version.
#
# Options (and the environment they stand for):
#   --base-url URL   CKG_INSTALL_BASE_URL   where releases are published (https; http only to this machine)
#   --version V      CKG_INSTALL_VERSION    the release, default latest
#   --prefix DIR     CKG_INSTALL_PREFIX     the folder ckg goes in: default /usr/local/bin as root,
#                                           else ~/.local/bin
# Also read: CKG_INSTALL_OS and CKG_INSTALL_ARCH in place of `uname -s` and `uname -m` (for tests,
# and to fetch another machine's executable), CKG_INSTALL_DOWNLOADER (curl or wget; default the
# first found). Needs: curl or wget, and sha256sum, shasum or openssl.
set -eu

# Filled in by scripts/install/release-files.ts for a published copy; empty here.
DEFAULT_BASE_URL=""

say() { printf 'ckg install: %s\n' "$*"; }
fail() {
  printf 'ckg install: error: %s\n' "$*" >&2
  exit 1
}
usage() {
  cat <<'USAGE'
Installs ckg for this machine from a release, checked against its ckg.sha256.
Usage: install.sh [--base-url URL] [--version V] [--prefix DIR]
  --base-url URL  where releases are published: <URL>/<version>/<platform>/ckg (CKG_INSTALL_BASE_URL)
  --version V     the release, default latest (CKG_INSTALL_VERSION)
  --prefix DIR    where ckg goes: default /usr/local/bin as root, else ~/.local/bin (CKG_INSTALL_PREFIX)
USAGE
}

base_url="${CKG_INSTALL_BASE_URL:-$DEFAULT_BASE_URL}"
version="${CKG_INSTALL_VERSION:-latest}"
prefix="${CKG_INSTALL_PREFIX:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --base-url) [ $# -ge 2 ] || fail "--base-url needs a URL"; base_url="$2"; shift 2 ;;
    --base-url=*) base_url="${1#*=}"; shift ;;
    --version) [ $# -ge 2 ] || fail "--version needs a release (0.2.0, latest)"; version="$2"; shift 2 ;;
    --version=*) version="${1#*=}"; shift ;;
    --prefix) [ $# -ge 2 ] || fail "--prefix needs a folder"; prefix="$2"; shift 2 ;;
    --prefix=*) prefix="${1#*=}"; shift ;;
    -h | --help) usage; exit 0 ;;
    *) fail "unknown option $1 (see --help)" ;;
  esac
done

# 1. The platform, as the release names it (scripts/release/targets.ts).
os="${CKG_INSTALL_OS:-$(uname -s)}"
arch="${CKG_INSTALL_ARCH:-$(uname -m)}"
case "$os" in
  Linux | linux) os_name=linux ;;
  Darwin | darwin) os_name=darwin ;;
  *) os_name="" ;;
esac
case "$arch" in
  x86_64 | amd64 | x64) arch_name=x64 ;;
  aarch64 | arm64) arch_name=arm64 ;;
  *) arch_name="" ;;
esac
# A shell under Rosetta reports x86_64 on an Apple Silicon Mac: take the native executable.
if [ "$os_name" = darwin ] && [ "$arch_name" = x64 ] && [ -z "${CKG_INSTALL_ARCH:-}" ] &&
  [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then
  arch_name=arm64
fi
if [ -z "$os_name" ] || [ -z "$arch_name" ]; then
  fail "no ckg executable for $os $arch (there are: linux-x64, linux-arm64, darwin-arm64, darwin-x64); nothing installed"
fi
platform="$os_name-$arch_name"
say "platform $platform ($os $arch)"

[ -n "$base_url" ] || fail "no release to install from: give --base-url URL or set CKG_INSTALL_BASE_URL (where releases are published)"
base_url="${base_url%/}"
case "$version" in
  "" | */* | *..*) fail "--version must name one release (0.2.0, latest), not '$version'" ;;
esac
# Plain http only to this machine: over a network the checksum would come by the same unchecked road.
case "$base_url" in
  https://*) ;;
  http://127.* | http://localhost | http://localhost[:/]* | http://\[::1\]*) ;;
  *) fail "the base URL must be https:// (http:// only to 127.0.0.1, localhost or [::1]): $base_url" ;;
esac
release_url="$base_url/$version/$platform"

if [ -z "$prefix" ]; then
  if [ "$(id -u)" = 0 ]; then prefix=/usr/local/bin; else prefix="${HOME:?HOME is not set: give --prefix}/.local/bin"; fi
fi

# 2. Tools: a downloader and a SHA-256.
downloader="${CKG_INSTALL_DOWNLOADER:-}"
if [ -z "$downloader" ]; then
  if command -v curl >/dev/null 2>&1; then downloader=curl
  elif command -v wget >/dev/null 2>&1; then downloader=wget
  else fail "needs curl or wget to download; nothing installed"
  fi
fi
case "$downloader" in
  curl | wget) command -v "$downloader" >/dev/null 2>&1 || fail "CKG_INSTALL_DOWNLOADER=$downloader is not on PATH" ;;
  *) fail "CKG_INSTALL_DOWNLOADER must be curl or wget, not '$downloader'" ;;
esac
download() { # url file: fails on any HTTP error status
  case "$downloader" in
    curl) curl --fail --silent --show-error --location --retry 2 --output "$2" "$1" ;;
    wget) wget --quiet --tries=3 --output-document="$2" "$1" ;;
  esac
}
sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d ' ' -f 1
  elif command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 "$1" | sed 's/^.*= *//'
  else return 1
  fi
}

# 3. Download into a private temporary folder, removed however the script ends.
work="$(mktemp -d "${TMPDIR:-/tmp}/ckg-install.XXXXXX")" || fail "cannot make a temporary folder"
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
chmod 700 "$work"

say "downloading $release_url/ckg.sha256"
download "$release_url/ckg.sha256" "$work/ckg.sha256" ||
  fail "no checksum at $release_url/ckg.sha256: refusing to install an unchecked executable; nothing installed"
# sha256sum's format: 64 hex digits, two spaces (or space and *), the file name.
expected="$(sed -n 's/^\([0-9a-fA-F]\{64\}\) [ *]ckg$/\1/p' "$work/ckg.sha256" | tr 'A-F' 'a-f')"
if [ -z "$expected" ] || [ "$(printf '%s\n' "$expected" | wc -l)" -ne 1 ]; then
  fail "$release_url/ckg.sha256 is not one sha256sum line for ckg; nothing installed"
fi

say "downloading $release_url/ckg"
download "$release_url/ckg" "$work/ckg" || fail "could not download $release_url/ckg; nothing installed"

# 4. The check, before the file is made executable or run.
actual="$(sha256_of "$work/ckg")" || fail "needs sha256sum, shasum or openssl to check the download; nothing installed"
actual="$(printf '%s' "$actual" | tr 'A-F' 'a-f')"
if [ "$actual" != "$expected" ]; then
  fail "checksum mismatch for $release_url/ckg: ckg.sha256 says $expected, the download is $actual; nothing installed"
fi
say "sha256 $actual matches ckg.sha256"

# 5. Install: a copy beside the destination, made executable, renamed into place.
mkdir -p "$prefix" || fail "cannot create $prefix"
staged="$prefix/.ckg.install.$$"
cp "$work/ckg" "$staged" || { rm -f "$staged"; fail "cannot write in $prefix (run as root, or give --prefix)"; }
if ! { chmod 755 "$staged" && mv -f "$staged" "$prefix/ckg"; }; then
  rm -f "$staged"
  fail "cannot move ckg into $prefix"
fi
say "installed $prefix/ckg"

case ":${PATH:-}:" in
  *":$prefix:"*) ;;
  *) say "$prefix is not on your PATH: add it, e.g. export PATH=\"$prefix:\$PATH\"" ;;
esac
"$prefix/ckg" --version || fail "$prefix/ckg is installed but did not run (--version failed): is this $platform?"
