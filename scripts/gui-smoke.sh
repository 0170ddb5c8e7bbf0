#!/usr/bin/env bash
# gui-smoke.sh starts the real memdesk desktop app under Xvfb on a seeded database, drives
# it with xdotool, and saves a screenshot of every screen. It fails when the window never
# appears, a screenshot stays blank, or Fyne reports a threading error.
#
#   scripts/gui-smoke.sh [ARTIFACT_DIR]     (default ./artifacts/gui)
#
# Needs (Debian): gcc libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev
# libxinerama-dev libxi-dev libxxf86vm-dev libwayland-dev libxkbcommon-dev
# xvfb xauth imagemagick xdotool x11-utils fonts-wqy-microhei
set -euo pipefail
# Bash counts characters, not bytes, in ${#text} and ${text:i:1} only under a UTF-8 locale.
export LC_ALL=C.UTF-8

artifacts=${1:-./artifacts/gui}
timeout_s=${GUI_SMOKE_TIMEOUT:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$artifacts"
artifacts=$(cd "$artifacts" && pwd)
work=$(mktemp -d)
xvfb_pid=""
app_pid=""

cleanup() {
	[ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null && wait "$app_pid" 2>/dev/null
	[ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null && wait "$xvfb_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

fail() {
	echo "gui-smoke: FAIL: $*" >&2
	[ -f "$artifacts/memdesk.log" ] && tail -n 30 "$artifacts/memdesk.log" >&2
	exit 1
}

for tool in Xvfb xdotool import convert; do
	command -v "$tool" >/dev/null || fail "$tool is not installed (see the header of this script)"
done

echo "gui-smoke: building"
(cd "$root" && go build -o "$work/memdesk" ./cmd/memdesk)
md() { "$work/memdesk" --db "$work/m.db" "$@"; }

echo "gui-smoke: seeding $work/m.db"
md remember "老王的生日是三月十二日，他喜欢喝龙井茶" >/dev/null
md remember "项目代号是青松，负责人是老王，下周五发布" >/dev/null
md remember "CI uses Python 3.12 on the build server" >/dev/null
md remember "The nightly backup runs at 02:00 and writes to /mnt/backup" >/dev/null
md remember --space work "Alice prefers tea over coffee; 她最喜欢绿茶" >/dev/null
# A pair that contradicts (badged on the Memories screen) and a fact the typed one changes.
md remember "CI uses Python 3.11 on the build server" >/dev/null
md remember "The release deadline is Friday" >/dev/null
mkdir -p "$work/docs/guides"
cat >"$work/docs/setup.md" <<'EOF'
# Build server setup

The build server runs Python 3.12 and Go 1.26. Install the toolchain with the script
in tools/setup.sh, then run the tests.

## 部署

部署前请联系老王确认发布窗口。备份在每晚两点运行。
EOF
cat >"$work/docs/guides/tea.txt" <<'EOF'
Green tea (绿茶) should steep at 80 °C for two minutes. Longjing (龙井) is a green tea
from Hangzhou.
EOF
md kb add "$work/docs" >/dev/null

echo "gui-smoke: starting Xvfb"
Xvfb -displayfd 3 -screen 0 1280x860x24 -nolisten tcp 3>"$work/display" 2>"$work/xvfb.log" &
xvfb_pid=$!
for _ in $(seq 100); do
	[ -s "$work/display" ] && break
	sleep 0.1
done
[ -s "$work/display" ] || fail "Xvfb did not start: $(cat "$work/xvfb.log")"
export DISPLAY=":$(head -n1 "$work/display")"

# bindKeysyms puts each non-ASCII character of its argument on a spare keycode of the
# server's keymap. Without it xdotool binds a scratch keycode per character and unbinds it
# right after the key press, and the app, reading the press after the unbind, loses it.
bindKeysyms() {
	local text=$1 map="$work/keymap.xkb" lines="" i c
	xkbcomp -xkb "$DISPLAY" "$map" 2>/dev/null
	# Keycodes the keymap defines but gives no symbols, highest first.
	local free
	free=$(comm -23 <(sed -n '/^xkb_keycodes/,/^};/p' "$map" | grep -o '<I[0-9]*>' | sort -u) \
		<(sed -n '/^xkb_symbols/,/^};/p' "$map" | grep -o 'key <I[0-9]*>' | sed 's/key //' | sort -u) | sort -r)
	set -- $free
	for ((i = 0; i < ${#text}; i++)); do
		c=${text:i:1}
		[[ $(printf '%d' "'$c") -lt 128 ]] && continue
		[ $# -gt 0 ] || fail "no spare keycode for $c"
		lines+="    key $1 { [ $(printf 'U%X' "'$c") ] };"$'\n'
		shift
	done
	awk -v add="$lines" '/^xkb_symbols/ { sym = 1 } sym && /^};/ { printf "%s", add; sym = 0 } { print }' \
		"$map" >"$map.new"
	xkbcomp "$map.new" "$DISPLAY" 2>/dev/null || fail "could not load the keymap"
}
cjk_query="老王"
bindKeysyms "$cjk_query"

echo "gui-smoke: starting memdesk gui on $DISPLAY"
# Fresh preferences, so the app opens on Recall at its default size.
XDG_CONFIG_HOME="$work/config" "$work/memdesk" --db "$work/m.db" gui >"$artifacts/memdesk.log" 2>&1 &
app_pid=$!

wid=$(timeout "$timeout_s" xdotool search --sync --onlyvisible --name memdesk 2>/dev/null | head -n1) ||
	fail "no window titled memdesk within ${timeout_s}s"
[ -n "$wid" ] || fail "no window titled memdesk within ${timeout_s}s"
echo "gui-smoke: window $wid: $(xdotool getwindowname "$wid")"
# No window manager runs under Xvfb: give the window the keyboard directly.
xdotool windowfocus --sync "$wid" 2>/dev/null || xdotool windowfocus "$wid"

# pixels counts the pixels that differ between two screenshots (a blinking cursor is a few
# dozen; a new screen is thousands).
pixels() {
	local n
	n=$(compare -metric AE -fuzz 2% "$1" "$2" null: 2>&1 || true)
	n=${n%% *}
	n=${n%%.*}
	case $n in '' | *[!0-9]*) echo 999999 ;; *) echo "$n" ;; esac
}

# shot NAME [UNLIKE.png]: screenshot the window once it is not blank, has stopped changing
# for about a second (results and animations have settled) and differs from the previous
# shot and from UNLIKE (the screen has changed as intended); fail after the timeout.
prev=""
shot() {
	local name=$1 unlike=${2:-} soft=${3:-} out="$artifacts/$1.png" cand="$work/cand.png" last="$work/last.png"
	local sd="0" steady=0 deadline=$((SECONDS + timeout_s))
	[ -z "$soft" ] || deadline=$((SECONDS + soft))
	rm -f "$last"
	while :; do
		import -window "$wid" "$cand" 2>/dev/null || true
		sd=$(convert "$cand" -format '%[fx:standard_deviation]' info: 2>/dev/null || echo 0)
		if [ -f "$last" ] && [ "$(pixels "$last" "$cand")" -lt 100 ]; then
			steady=$((steady + 1))
		else
			steady=0
		fi
		if awk -v sd="$sd" 'BEGIN { exit !(sd > 0.02) }' && [ "$steady" -ge 3 ] &&
			{ [ -z "$prev" ] || [ "$(pixels "$prev" "$cand")" -gt 300 ]; } &&
			{ [ -z "$unlike" ] || [ "$(pixels "$unlike" "$cand")" -gt 300 ]; }; then
			break
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			[ -z "$soft" ] || return 1
			fail "$name.png stayed blank or unchanged (stddev $sd)"
		fi
		cp "$cand" "$last" 2>/dev/null || true
		sleep 0.3
	done
	cp "$cand" "$out"
	kill -0 "$app_pid" 2>/dev/null || fail "memdesk exited while taking $name.png"
	prev=$out
	echo "gui-smoke: $out (stddev $sd)"
}

# typeText types text one character at a time; non-ASCII characters go as Unicode keysyms
# (U8001 for 老), which bindKeysyms has put on the keyboard beforehand.
typeText() {
	local text=$1 i c
	for ((i = 0; i < ${#text}; i++)); do
		c=${text:i:1}
		if [[ $(printf '%d' "'$c") -lt 128 ]]; then
			xdotool type -- "$c"
		else
			xdotool key "$(printf 'U%X' "'$c")"
		fi
		sleep 0.1
	done
}

shot 0-start
typeText "python"
shot 1-recall-en
# Keysyms bound a moment ago are sometimes dropped by a busy X server: type the Chinese query
# again (up to three times) until the screen shows its answer.
for attempt in 1 2 3; do
	xdotool windowfocus "$wid" 2>/dev/null || true
	xdotool key ctrl+a BackSpace
	typeText "$cjk_query"
	if [ "$attempt" -lt 3 ]; then
		shot 2-recall-zh "$artifacts/0-start.png" 15 && break
		echo "gui-smoke: the Chinese query did not show; typing it again" >&2
	else
		shot 2-recall-zh "$artifacts/0-start.png"
	fi
done
xdotool key ctrl+2
shot 3-memories
# The Memories screen puts the keyboard in its add box; Ctrl+Enter saves.
typeText "The release deadline is Monday"
xdotool key ctrl+Return
shot 4-memories-added "$artifacts/3-memories.png"
# The live view: with the window open on Memories, the CLI (another process) writes a memory
# and the window must show it without being touched. The latency is measured from the CLI's
# exit (its commit is done) to the first screenshot that differs from the one before: an
# upper bound, since one screenshot takes about 0.1 s.
import -window "$wid" "$work/before-live.png"
t0=$(date +%s.%N)
md remember "Written by the CLI while the window is open" >/dev/null
t1=$(date +%s.%N)
seen="" looks=0
while awk -v a="$(date +%s.%N)" -v b="$t1" 'BEGIN { exit !(a - b < 10) }'; do
	import -window "$wid" "$work/live.png" 2>/dev/null || continue
	looks=$((looks + 1))
	if [ "$(pixels "$work/before-live.png" "$work/live.png")" -gt 300 ]; then
		seen=$(date +%s.%N)
		break
	fi
done
[ -n "$seen" ] || fail "the memory the CLI wrote did not show in the open window within 10 s"
awk -v t0="$t0" -v t1="$t1" -v t2="$seen" -v n="$looks" 'BEGIN {
	printf "gui-smoke: live refresh: the CLI took %.2f s; its commit showed in the window %.2f s after it exited (screenshot %d, %.2f s per look)\n",
		t1 - t0, t2 - t1, n, (t2 - t1) / n }' |
	tee "$artifacts/live-refresh.txt"
awk -v t1="$t1" -v t2="$seen" 'BEGIN { exit !(t2 - t1 <= 1.0) }' ||
	echo "gui-smoke: WARNING: the live refresh took longer than 1 s (a busy machine, or a regression)" >&2
# The saved screenshot is of the settled window: the row comes first, the counts a moment later.
prev="$work/before-live.png"
shot live-refresh
xdotool key ctrl+3
shot 5-knowledge
xdotool key ctrl+4
shot 6-settings
# Running a repair is driven headlessly (ui/settings_test.go): here the Settings screen only
# has to render, since its Tab order changes whenever a section is added.

if grep -q 'Error in Fyne call thread' "$artifacts/memdesk.log"; then
	fail "Fyne reported a widget update off the UI goroutine"
fi
echo "gui-smoke: ok; screenshots in $artifacts"
