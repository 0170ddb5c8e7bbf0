#!/usr/bin/env bash
# Installs the Debian packages memdesk needs to build and test: a C toolchain and the X11/GL
# headers for Fyne's cgo binding, a CJK font so Chinese renders, two real PDFs the import tests
# read (the shared-mime-info spec and the libtasn1 manual), and what the GUI smoke test
# drives the app with, and Syncthing with ss (iproute2) for the sync tests, which run two real
# Syncthing instances on 127.0.0.1 and check their sockets stay there (internal/syncthingtest).
# Already-installed packages are skipped, so this is cheap to rerun.
set -euo pipefail

packages=(
  gcc pkg-config
  libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev
  libxxf86vm-dev libwayland-dev libxkbcommon-dev
  fonts-wqy-microhei
  shared-mime-info libtasn1-doc
  xvfb xauth imagemagick xdotool x11-utils
  syncthing iproute2
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "deps: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v go >/dev/null 2>&1; then
  echo "deps: Go 1.26 or newer is needed (https://go.dev/dl/); Debian's golang package is too old" >&2
  exit 1
fi
go mod download
