#!/bin/bash
# Times taking a match up again (BENCHMARKS.md, "Resuming a match"): copies the replay folder
# of DIR (written by `cargo run --release -p cohort-server --example resume_files -- DIR`),
# starts the release cohort-server on it with a state folder, and prints the time from the
# process's start to its `listening` line (every match found rebuilt and hosted by then) and
# the server's own note on the rebuild. Build first: cargo build --release -p cohort-server.
# usage: server/bench/resume_time.sh DIR
set -eu
src=$1
bin=$(dirname "$0")/../../target/release/cohort-server
run=$(mktemp -d)
cp -r "$src/replays" "$run/"
start=$(date +%s.%N)
"$bin" --state-dir "$run/state" --replay-dir "$run/replays" --report-dir "$run/reports" \
    --listen 127.0.0.1:0 --matches 1 > "$run/out" 2> "$run/log" &
pid=$!
while ! grep -q listening "$run/out" 2> /dev/null; do sleep 0.01; done
end=$(date +%s.%N)
kill "$pid"
wait "$pid" 2> /dev/null || true
echo "listening after: $(echo "$end - $start" | bc) s"
grep -o 'note=.*' "$run/log" || true
rm -rf "$run"
