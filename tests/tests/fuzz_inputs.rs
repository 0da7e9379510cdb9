//! The fuzz targets of `fuzz/` (cargo-fuzz, nightly, by hand), bounded and seeded so that they
//! run on stable in every `cargo test`: each target takes its seed inputs and a few thousand
//! mutations of them (bits flipped, bytes set, runs inserted, deleted, repeated or spliced from
//! another seed, numbers and TOML punctuation dropped in, the input cut short), drawn from a
//! fixed seed so a failure comes back on every run. A failing input is written to
//! `target/fuzz-failures/` and named in the panic, for `cargo fuzz run TARGET FILE`.

#[path = "../../fuzz/src/lib.rs"]
mod targets;

use cohort_sim::world::Rng;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

/// Mutated inputs per target, unless `COHORT_FUZZ_CASES` says how many.
const CASES: usize = 3000;

fn cases() -> usize {
    std::env::var("COHORT_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(CASES)
}

/// Tokens that reach deeper than random bytes: numbers at the edges of their types, TOML
/// punctuation, the names the files use.
const TOKENS: &[&[u8]] = &[
    b"4294967300",
    b"-1",
    b"0",
    b"18446744073709551615",
    b"9223372036854775807",
    b"-9223372036854775808",
    b"2147483648",
    b"1e999",
    b"nan",
    b"0.5",
    b"\"140737488355327\"",
    b"[",
    b"]",
    b"[[units]]\n",
    b"[[commands]]\n",
    b"[map]\n",
    b"=",
    b"\"",
    b"\"\"\"",
    b"\n",
    b",",
    b"{",
    b"}",
    b"count = 20001\n",
    b"at = [1, 1, 1]\n",
    b"file = \"m.map\"\n",
    b"rules = \"r.toml\"\n",
    b"\xff",
    b"\xe9",
    b"\x00",
];

fn mutate(rng: &mut Rng, seed: &[u8], seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut v = seed.to_vec();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        let len = v.len() as u64;
        let at = |rng: &mut Rng| rng.below(len + 1) as usize;
        match rng.below(8) {
            0 if !v.is_empty() => {
                let i = rng.below(len) as usize;
                v[i] ^= 1 << rng.below(8);
            }
            1 if !v.is_empty() => {
                let i = rng.below(len) as usize;
                v[i] = rng.next_u64() as u8;
            }
            2 => {
                let i = at(rng);
                let n = 1 + rng.below(8) as usize;
                let bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
                v.splice(i..i, bytes);
            }
            3 if !v.is_empty() => {
                let i = rng.below(len) as usize;
                let n = (1 + rng.below(64) as usize).min(v.len() - i);
                v.drain(i..i + n);
            }
            4 if !v.is_empty() => {
                let i = rng.below(len) as usize;
                let n = (1 + rng.below(64) as usize).min(v.len() - i);
                let run = v[i..i + n].to_vec();
                let j = at(rng);
                v.splice(j..j, run);
            }
            5 => {
                let other = &seeds[rng.below(seeds.len() as u64) as usize];
                if !other.is_empty() {
                    let from = rng.below(other.len() as u64) as usize;
                    let n = (1 + rng.below(256) as usize).min(other.len() - from);
                    let i = at(rng);
                    v.splice(i..i, other[from..from + n].iter().copied());
                }
            }
            6 => {
                let token = TOKENS[rng.below(TOKENS.len() as u64) as usize];
                let i = at(rng);
                v.splice(i..i, token.iter().copied());
            }
            _ => {
                let i = at(rng);
                v.truncate(i);
            }
        }
    }
    v
}

/// Runs target `name` over its seeds and `CASES` mutations of them drawn from `seed`.
fn fuzz(name: &str, seed: u64) {
    let (_, target) = targets::TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .expect("a target");
    let seeds = targets::seeds(name);
    assert!(!seeds.is_empty(), "{name} has seeds");
    let mut rng = Rng::new(seed);
    let inputs = seeds.iter().cloned().chain((0..cases()).map(|_| {
        let s = &seeds[rng.below(seeds.len() as u64) as usize];
        mutate(&mut rng, s, &seeds)
    }));
    for (case, input) in inputs.enumerate() {
        if catch_unwind(AssertUnwindSafe(|| target(&input))).is_err() {
            let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/fuzz-failures");
            let _ = std::fs::create_dir_all(&dir);
            let path = dir.join(format!("{name}-{seed}-{case}"));
            let _ = std::fs::write(&path, &input);
            panic!(
                "{name}: case {case} failed; its input is {}",
                path.display()
            );
        }
    }
}

#[test]
fn frames_never_panic_and_what_decodes_round_trips() {
    fuzz("frame_decoder", 1);
}

#[test]
fn snapshots_never_panic_the_server_or_a_rejoining_client() {
    fuzz("snapshot", 2);
}

#[test]
fn replays_never_panic_and_their_tail_is_told_consistently() {
    fuzz("replay_reader", 3);
}

#[test]
fn reports_never_panic() {
    fuzz("report_reader", 4);
}

#[test]
fn match_snapshots_never_panic_a_restarted_server() {
    fuzz("match_snapshot", 8);
}

#[test]
fn scenarios_load_or_are_refused_at_a_line() {
    fuzz("scenario", 5);
}

#[test]
fn maps_lay_out_or_are_refused_at_a_line() {
    fuzz("map", 6);
}

#[test]
fn rulesets_compile_or_are_refused_at_a_line() {
    fuzz("ruleset", 7);
}
