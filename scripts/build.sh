#!/usr/bin/env bash
# Builds memdesk as it ships, to bin/memdesk or the path given: without debug sections, and
# with the build tags of scripts/goflags.sh, so the binary carries only the dictionary and the
# fonts it uses (issue 28: at most 60 MB; test.sh checks it).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/goflags.sh
out=${1:-bin/memdesk}
mkdir -p "$(dirname "$out")"
go build -trimpath -ldflags "-s -w" -o "$out" ./cmd/memdesk
