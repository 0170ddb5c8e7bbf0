#!/usr/bin/env bash
# The test suite as CI runs it: formatting, vet, every package's tests (short mode, race
# detector) and one pass of every benchmark so none of them rots.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh

unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" >&2
  echo "$unformatted" >&2
  exit 1
fi
if ! go mod tidy -diff >/dev/null; then
  echo "go.mod/go.sum are not tidy: run go mod tidy" >&2
  exit 1
fi
go vet ./...
# The gold-set eval (engine/eval/enginearm) runs the real engine over SQLite thousands of
# times; under the race detector it takes ~45x longer (9 s -> 6.5 min), so it runs without
# it. Every other package, the engine's concurrent paths included, runs with it.
go test -short -race -timeout 20m $(go list ./... | grep -v '/engine/eval/enginearm$')
go test -short -timeout 10m ./engine/eval/enginearm
go test -short -run '^$' -bench . -benchtime 1x -timeout 10m ./...
# The real binary under Xvfb: the window appears, every screen renders (screenshots kept in
# artifacts/gui for a person to look at).
./scripts/gui-smoke.sh artifacts/gui
