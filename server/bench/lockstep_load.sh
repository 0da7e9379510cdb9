#!/usr/bin/env bash
# Lockstep load benchmark: one cohort-server on loopback hosting MATCHES matches of PLAYERS
# players, played by `cohort bot` clients (one process) for TURNS turns.
# MODE `ack` (the default): the default map's few units, `--no-sim` clients (acknowledgements,
# no hashes): the protocol's load. MODE `sim`: real work — every match with full armies
# (`--army LOAD_ARMY`, default 200 per player: 1,600 units with 8 players), orders every turn to
# crowds of up to 50 units (`--order-every 1 --group-max 50`), and one client in every
# LOAD_SIM_EVERY (default PLAYERS: one per match) simulating and sending its hash, so desyncs
# are caught for real (LOAD_SIM_EVERY=1: every client simulates).
# Prints one JSON object: turn send jitter (each bundle handed to each client's QUIC stream,
# minus its turn's deadline) and turn close lateness p50/p99/max, server CPU, peak memory
# (whole process and per match), bytes per client per second, desyncs, dropped clients, bots
# that failed, the clients' hashes the server compared, the load average before and after,
# what other processes took of the CPU meanwhile (`others_cpu_percent_of_one_core`: the
# machine's busy time less the server's and the bots'), UDP receive-buffer drops on the machine.
# Usage: server/bench/lockstep_load.sh [MATCHES] [PLAYERS] [TURNS] [ack|sim]
# LOAD_OUT=DIR keeps the run's files in DIR; LOAD_BUILD=0 skips the release build. The bots
# are stopped after 60 s + 1 s per turn (a lobby that never fills does not hang the run). The
# bot process runs at nice LOAD_BOT_NICE (default 10; 19 in `sim` mode, where the server's
# own sim threads run at nice 10, SIM_NICE): it stands in for clients on other machines, so on
# a shared machine it yields the cores to the server it measures. In `sim` mode the matches
# end by themselves after TURNS turns (`--max-turns`) and the bots play until then, so a
# client counted as dropped was dropped while the match was being played.
# LOAD_BOT_ARGS adds flags to `cohort bot` (e.g. "--handshakes 400").
# Pinning (issue 37): the server runs on the CPUs LOAD_SERVER_CPUS (default 0) and the bots on
# LOAD_BOT_CPUS (default 1), each through `taskset -c`, so the server's figures are its own
# core's and the bots (standing in for clients on other machines) never take it; the server's
# sim pool then has one thread (it sizes itself to the CPUs it may run on). LOAD_PIN=0 runs
# both unpinned, as before. Other processes on the machine are not kept off either core: the
# JSON's `others_cpu_percent_of_one_core` says what they took.
# `server/bench/lockstep_load.sh sweep [PLAYERS] [TURNS]`: the capacity sweep, `sim` mode at
# 1, 2, 4, 6 and 8 matches (LOAD_SWEEP_MATCHES to choose), one JSON object per line.
set -euo pipefail
if [ "${1:-}" = sweep ]; then
  cd "$(git rev-parse --show-toplevel)"
  [ "${LOAD_BUILD:-1}" = 0 ] || cargo build --release -q -p cohort-server -p cohort-client
  for n in ${LOAD_SWEEP_MATCHES:-1 2 4 6 8}; do
    LOAD_BUILD=0 "$0" "$n" "${2:-8}" "${3:-300}" sim | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))'
  done
  exit 0
fi
MATCHES=${1:-50}
PLAYERS=${2:-8}
TURNS=${3:-300}
MODE=${4:-ack}
case "$MODE" in
  ack) server_mode=(); bot_mode=(--no-sim --turns "$TURNS"); bot_nice=${LOAD_BOT_NICE:-10} ;;
  sim) server_mode=(--army "${LOAD_ARMY:-200}" --max-turns "$TURNS")
       bot_mode=(--order-every 1 --group-max 50 --sim-every "${LOAD_SIM_EVERY:-$PLAYERS}")
       bot_nice=${LOAD_BOT_NICE:-19} ;;
  *) echo "MODE is ack or sim, not $MODE" >&2; exit 2 ;;
esac
if [ "${LOAD_PIN:-1}" = 0 ]; then
  server_pin=(); bot_pin=()
else
  server_pin=(taskset -c "${LOAD_SERVER_CPUS:-0}"); bot_pin=(taskset -c "${LOAD_BOT_CPUS:-1}")
fi
cd "$(git rev-parse --show-toplevel)"
[ "${LOAD_BUILD:-1}" = 0 ] || cargo build --release -q -p cohort-server -p cohort-client
out=${LOAD_OUT:-$(mktemp -d)}; mkdir -p "$out"
trap 'kill $pid 2>/dev/null || true; kill $sampler 2>/dev/null || true' EXIT
"${server_pin[@]}" target/release/cohort-server --listen 127.0.0.1:0 --matches "$MATCHES" --players "$PLAYERS" \
  --secret bench --tokens-file "$out/tokens.json" --stats-file "$out/stats.json" \
  --replay-dir "$out/replays" --report-dir "$out/reports" "${server_mode[@]}" \
  >"$out/server.out" 2>"$out/server.err" &
pid=$!
for _ in $(seq 100); do grep -q fingerprint "$out/server.out" 2>/dev/null && break; sleep 0.1; done
addr=$(head -1 "$out/server.out" | awk '{print $5}')
fp=$(grep fingerprint "$out/server.out" | awk '{print $NF}')
tokens=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join(t for m in d["matches"] for t in m["players"]))' "$out/tokens.json")
# Sample the server's CPU ticks and peak resident memory until it exits.
( while kill -0 "$pid" 2>/dev/null; do
    s=$(awk '{print $14+$15}' /proc/"$pid"/stat 2>/dev/null) || break
    h=$(awk '/VmHWM/{print $2}' /proc/"$pid"/status 2>/dev/null) || break
    echo "$s $h"; sleep 0.5
  done >"$out/samples" ) &
sampler=$!
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# The machine's busy CPU ticks (user, nice, system, irq, softirq, steal) and the server's, so
# that what other processes took during the run can be told apart (`others_cpu_percent...`).
machine_ticks() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }
server_ticks() { awk '{print $14+$15}' /proc/"$pid"/stat 2>/dev/null || echo 0; }
machine_before=$(machine_ticks); server_before=$(server_ticks)
udp_drops() { awk '/^Udp:/ && $2 ~ /^[0-9]+$/ {print $6}' /proc/net/snmp; }
drops_before=$(udp_drops)
start=$(date +%s.%N)
timeout $((60 + TURNS)) "${bot_pin[@]}" nice -n "$bot_nice" /usr/bin/time -f "%U %S" -o "$out/bot.time" \
  target/release/cohort bot --server "$addr" --fingerprint "$fp" --token "$tokens" \
  --clients $((MATCHES * PLAYERS)) "${bot_mode[@]}" ${LOAD_BOT_ARGS:-} \
  >"$out/bots.jsonl" 2>"$out/bots.err" || true
end=$(date +%s.%N)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
machine_after=$(machine_ticks); server_after=$(server_ticks)
drops_after=$(udp_drops)
sleep 1
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" || true
wait "$sampler" || true
python3 - "$out" "$MATCHES" "$PLAYERS" "$TURNS" "$start" "$end" "$(getconf CLK_TCK)" \
  "$load_before" "$load_after" "$((drops_after - drops_before))" "$MODE" "${LOAD_ARMY:-200}" "$bot_nice" \
  "$((machine_after - machine_before))" "$((server_after - server_before))" \
  "${server_pin[2]:-all}" "${bot_pin[2]:-all}" <<'PY'
import json, sys
(out, matches, players, turns, start, end, hz, load_before, load_after, drops, mode, army, bot_nice,
 machine_ticks, server_ticks, server_cpus, bot_cpus) = sys.argv[1:]
matches, players, turns, hz = int(matches), int(players), int(turns), int(hz)
seconds = float(end) - float(start)
stats = json.load(open(f"{out}/stats.json"))
# A sample taken as the server exits may lack its memory field.
samples = [l.split() for l in open(f"{out}/samples") if len(l.split()) == 2]
cpu_s = int(samples[-1][0]) / hz if samples else None
peak_kib = max(int(s[1]) for s in samples) if samples else None
bots = [json.loads(l) for l in open(f"{out}/bots.jsonl") if l.startswith("{")]
clients = matches * players
try:
    u, sy = open(f"{out}/bot.time").read().split()[-2:]
    bot_cpu_s = float(u) + float(sy)
except (OSError, ValueError):
    bot_cpu_s = None
bot_cpu = round(100 * bot_cpu_s / seconds, 1) if bot_cpu_s is not None else None
# What the rest of the machine took while the bots ran: its busy time minus the server's and
# the bots' (percent of one core; the machine has `nproc` cores).
others = (int(machine_ticks) - int(server_ticks)) / hz - (bot_cpu_s or 0)
others_cpu = round(100 * max(others, 0) / seconds, 1)
print(json.dumps({
    "command": f"server/bench/lockstep_load.sh {matches} {players} {turns} {mode}",
    "server_cpus": server_cpus, "bot_cpus": bot_cpus,
    "mode": mode,
    # From the configuration (`--army`): the armies are exactly this big (sim/src/map/armies.rs).
    "units_per_match": players * int(army) if mode == "sim" else None,
    "matches": matches, "players_per_match": players, "clients": clients,
    "bot_seconds": round(seconds, 2),
    "turns_closed": stats["turns_closed"],
    "turn_send_jitter_ms": {"p50": stats["send_lateness_us_p50"] / 1000,
                            "p99": stats["send_lateness_us_p99"] / 1000,
                            "max": stats["send_lateness_us_max"] / 1000},
    "bundle_sends": stats["bundle_sends"],
    "turn_close_lateness_ms": {"p50": stats["close_lateness_us_p50"] / 1000,
                               "p99": stats["close_lateness_us_p99"] / 1000,
                               "max": stats["close_lateness_us_max"] / 1000},
    "server_cpu_seconds": cpu_s,
    "server_cpu_percent_of_one_core": round(100 * cpu_s / seconds, 1) if cpu_s else None,
    "server_peak_rss_mib": round(peak_kib / 1024, 1) if peak_kib else None,
    "server_peak_rss_mib_per_match": round(peak_kib / 1024 / matches, 2) if peak_kib else None,
    "bot_cpu_percent_of_one_core": bot_cpu, "bot_nice": int(bot_nice),
    "bytes_out_per_client_per_second": round(stats["bytes_out"] / clients / seconds),
    "bytes_in_per_client_per_second": round(stats["bytes_in"] / clients / seconds),
    # The server's count of clients' hashes it compared with its own: "0 desyncs" means
    # something only when this is not 0.
    "hashes_compared_by_server": stats["hashes_compared"],
    "desyncs": stats["desyncs"], "dropped": stats["dropped"],
    # How far the server's sim fell behind its turn clocks (issue 37), the worst match.
    "sim_behind_max_turns": max((m["stats"].get("sim_behind_max", 0) for m in stats["matches"]), default=None),
    "sim_failures": sum(1 for m in stats["matches"] if m.get("sim_panicked")),
    "connections": stats["connections"],
    "bots_reporting": len(bots),
    "bots_failed": sum(1 for b in bots if b.get("error")),
    "bots_hashing": sum(1 for b in bots if b.get("hashes_agreed", 0) + b.get("hashes_disagreed", 0) > 0),
    "hashes_agreed": sum(b.get("hashes_agreed", 0) for b in bots),
    "hashes_disagreed": sum(b.get("hashes_disagreed", 0) for b in bots),
    "commands_sent": sum(b.get("commands_sent", 0) for b in bots),
    "bot_connect_retries": sum(b.get("connect_attempts", 1) - 1 for b in bots),
    "bots_with_errors": sum(1 for b in bots if b.get("server_errors")),
    "bot_turns_run_min": min((b["turns_run"] for b in bots), default=None),
    "load_average_before": load_before, "load_average_after": load_after,
    "others_cpu_percent_of_one_core": others_cpu,
    "udp_receive_buffer_drops_on_machine": int(drops),
}, indent=1))
PY
