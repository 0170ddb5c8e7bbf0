#!/usr/bin/env bash
# Builds and runs memdesk on the embedded default database (your data directory). With no
# arguments it opens the desktop app when a display exists, else prints the CLI's help.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
./scripts/build.sh bin/memdesk
exec ./bin/memdesk "$@"
