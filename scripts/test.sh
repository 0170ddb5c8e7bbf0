#!/usr/bin/env bash
# The test suite as CI runs it: formatting, vet, every package's tests (short mode, race
# detector) and one pass of every benchmark so none of them rots. Every stage runs even
# when an earlier one failed, so one run reports every failure; the exit status is 1 if
# any stage failed.
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh || exit 1
. scripts/goflags.sh

failed=()
# scratch holds this run's binary and the cache home below; gone after.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
bin=$scratch/memdesk
# One PDFium compile for every test process of this run (engine, ui, ingest and
# cmd/memdesk read it), made before any of them starts by uninstrumented code in seconds: a race-instrumented process spends ~20 s of CPU on each compile, minutes
# beside other work, and the first ones start together, so they would each compile it.
MEMDESK_TEST_PDF_CACHE=$scratch/cache/memdesk/pdfium
export MEMDESK_TEST_PDF_CACHE
# stage NAME CMD...: runs CMD, timing it, and records NAME when it fails.
stage() {
  local name=$1
  shift
  local start=$SECONDS
  echo "== $name" >&2
  if "$@"; then
    echo "== $name: ok ($((SECONDS - start)) s)" >&2
  else
    echo "== $name: FAILED ($((SECONDS - start)) s)" >&2
    failed+=("$name")
  fi
}
# beside NAME CMD...: starts CMD as a stage in the background, its output kept apart;
# stages_beside_done waits for every one and prints each output whole, then its result.
# The race stage runs mostly one test at a time per package: the gold set and the
# benchmarks, each about one core, use what it leaves (and, beside other work, hold a
# share of the machine instead of waiting their turn).
beside_names=()
beside_pids=()
beside_logs=()
beside() {
  local name=$1 log
  shift
  log=$(mktemp)
  (
    start=$SECONDS
    if "$@"; then
      echo "== $name: ok ($((SECONDS - start)) s, beside the race stage)"
    else
      echo "== $name: FAILED ($((SECONDS - start)) s, beside the race stage)"
      exit 1
    fi
  ) >"$log" 2>&1 &
  beside_names+=("$name")
  beside_pids+=($!)
  beside_logs+=("$log")
}
stages_beside_done() {
  local i
  for i in "${!beside_pids[@]}"; do
    wait "${beside_pids[$i]}" || failed+=("${beside_names[$i]}")
    echo "== ${beside_names[$i]}" >&2
    cat "${beside_logs[$i]}" >&2
    rm -f "${beside_logs[$i]}"
  done
}

gofmt_clean() {
  local unformatted
  unformatted=$(gofmt -l $(git ls-files '*.go'))
  if [ -n "$unformatted" ]; then
    echo "gofmt would change:" >&2
    echo "$unformatted" >&2
    return 1
  fi
}
mod_tidy() {
  if ! go mod tidy -diff >/dev/null; then
    echo "go.mod/go.sum are not tidy: run go mod tidy" >&2
    return 1
  fi
}

# binary_size: the binary the README's run command builds weighs at most 60 MB (issue 28).
# It stays in $bin for the stages below.
binary_size() {
  local size
  ./scripts/build.sh "$bin" || return 1
  size=$(stat -c %s "$bin")
  echo "memdesk binary: $size bytes" >&2
  if [ "$size" -gt 60000000 ]; then
    echo "the binary is over 60 MB: see what grew with go tool nm -size -sort size" >&2
    return 1
  fi
}

stage gofmt gofmt_clean
stage "go mod tidy" mod_tidy
stage "go vet" go vet ./...
stage "binary size" binary_size
# warm_pdf_cache compiles PDFium into $MEMDESK_TEST_PDF_CACHE under both names wazero files
# it by: its release version, in binaries that carry their modules' versions (the one built
# above, and cmd/memdesk's tests' subprocesses), and "dev" in test binaries, which carry none.
# The first by the binary importing a PDF, the second by an uninstrumented ingest test. Should
# either fail, the test processes compile their own: slower, never wrong.
warm_pdf_cache() {
  XDG_CACHE_HOME=$scratch/cache XDG_CONFIG_HOME=$scratch/config \
    "$bin" --db "$scratch/warm.db" kb add engine/testdata/kb/report.pdf >/dev/null 2>&1 &&
    go test -short -vet=off -count=1 -run '^TestParseGolden$' ./engine/ingest >/dev/null &&
    [ "$(ls "$MEMDESK_TEST_PDF_CACHE" | wc -l)" -ge 2 ]
}
stage "PDFium compiled once" warm_pdf_cache
# The gold-set eval (engine/eval/enginearm) runs the real engine over SQLite thousands of
# times; under the race detector it takes ~45x longer (9 s -> 6.5 min), so it runs without
# it. Every other package, the engine's concurrent paths included, runs with it. The timeout
# is a guard against a hang, not a speed target: beside two CPU-bound loops the engine
# package alone took over 20 minutes (2026-12-05).
#
# SQLite runs uninstrumented under the race detector, as it would if it were C:
# go-sqlite3-wasm is SQLite's C translated to Go from wasm (6 MB of it). Instrumented,
# every SQL statement ran ~30x slower, which made the race stage 19 minutes on an idle
# machine and most of an hour beside other work. Our code and every other library stay
# instrumented: a *sqlite3.Conn used from two goroutines is still caught in go-sqlite3's
# own wrapper, which is. (wazero, which compiles PDFium, was exempted too and then
# TestFrontEndsConcurrently reported races inside encoding/json's sync.Map cache in 2 of
# 35 runs, never in 50 with SQLite alone exempt: it stays instrumented.)
race_exempt=(-gcflags='github.com/ncruces/go-sqlite3-wasm/v6/...=-race=false')
#
# The packages go longest first (CPU on an idle machine, 2026-12-06: engine 247 s,
# cmd/memdesk 209 s, ui 119 s, ingest 80 s, devsync 76 s; the rest under 10 s each), so
# that the last to start is never one of them (go runs a package named twice once, where
# it is first named). -vet=off: the go vet stage above has run every analyzer already.
longest=(./engine ./cmd/memdesk ./ui ./engine/ingest ./engine/devsync)
race_pkgs=("${longest[@]}" $(go list ./... | grep -v '/engine/eval/enginearm$'))
# Only the 16 packages that have benchmarks: the other 27 would each link a test binary
# to run nothing.
bench_pkgs=$(git grep -l '^func Benchmark' -- '*_test.go' | xargs -n1 dirname | sort -u | sed 's|^|./|')
# Their timeouts are hang guards as long as the race stage's: beside the race stage and six
# CPU-bound loops the gold set took 551-571 s and the benchmarks 508-530 s, and a 10-minute
# guard failed the gold set at 600 s once (2026-12-06) when a little more ran beside them.
beside "eval gold set" go test -short -vet=off -timeout 40m ./engine/eval/enginearm
beside benchmarks go test -short -vet=off -run '^$' -bench . -benchtime 1x -timeout 40m $bench_pkgs
# The real binary under Xvfb: the window appears, every screen renders (screenshots kept in
# artifacts/gui for a person to look at). It mostly waits on the window, a quarter of a core,
# so it too runs beside the race stage, once the two stages above have ended. Its typing
# figures are then taken beside the race stage, and it says so: what a person feels is
# measured by running scripts/gui-smoke.sh alone on a quiet machine. The timeout for each
# screen to settle is a guard, generous for a busy machine.
gui_smoke_after() {
  local pid start=$SECONDS
  for pid in "$@"; do
    while kill -0 "$pid" 2>/dev/null; do sleep 2; done
  done
  # The stage's time below counts this wait too.
  echo "gui smoke: started after waiting $((SECONDS - start)) s for the stages before it"
  GUI_SMOKE_BINARY=$bin GUI_SMOKE_TIMEOUT=180 GUI_SMOKE_BESIDE="the race stage" ./scripts/gui-smoke.sh artifacts/gui
}
beside "gui smoke" gui_smoke_after "${beside_pids[@]}"
stage "unit tests (race)" go test -short -race -vet=off "${race_exempt[@]}" -timeout 40m "${race_pkgs[@]}"
stages_beside_done

if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED stages: ${failed[*]}" >&2
  exit 1
fi
echo "all stages passed" >&2
