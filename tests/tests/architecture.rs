//! ARCHITECTURE.md's map is true: every source file of every crate — each `.rs` under a crate's
//! `src/`, `tests/` and `examples/` (and the fuzz crate's `src/`) — is named in it.
//!
//! A file is named when the map holds its path from the repository's root (`sim/tests/verify.rs`),
//! or, in its crate's own section (the one headed `` `sim/` `` for cohort-sim), a shorter tail of
//! that path down to the file's name (`walk/apart.rs`, `apart.rs`); a list in braces names each
//! of its files (`astar/{board,clear}.rs`). A folder's `mod.rs` is named by the folder
//! (`` `walk/` ``). A file added, moved or renamed without its line in the map fails here,
//! naming it.

use std::path::{Path, PathBuf};

/// The crates, by their folder.
const CRATES: [&str; 7] = [
    "sim",
    "protocol",
    "server",
    "client-cli",
    "ffi",
    "tests",
    "fuzz",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every word of `text` that could name a file or a folder (`a/b.rs`, `b.rs`, `walk/`), with
/// lists in braces spelt out (`astar/{board,clear}.rs` → `astar/board.rs`, `astar/clear.rs`).
fn names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let word = |c: char| c.is_alphanumeric() || "_-./{},".contains(c);
    for raw in text.split(|c: char| !word(c)) {
        let raw = raw.trim_matches(|c: char| c == '.' || c == ',');
        match (raw.find('{'), raw.find('}')) {
            (Some(open), Some(close)) if open < close => {
                let (head, tail) = (&raw[..open], &raw[close + 1..]);
                for part in raw[open + 1..close].split(',') {
                    out.push(format!("{head}{part}{tail}"));
                }
            }
            _ => out.extend(raw.split(',').map(str::to_string)),
        }
    }
    out.retain(|n| n.ends_with(".rs") || n.ends_with('/'));
    out
}

/// The map's section of crate `krate`: from the heading naming `` `krate/` `` to the next.
fn section<'a>(map: &'a str, krate: &str) -> &'a str {
    let heading = format!("### `{krate}/`");
    let Some(start) = map.find(&heading) else {
        return "";
    };
    let rest = &map[start + heading.len()..];
    let end = rest.find("\n### ").unwrap_or(rest.len());
    &rest[..end]
}

/// Whether the map names `file` (its path from the root, `/`-separated) of crate `krate`.
fn named(file: &str, krate: &str, everywhere: &[String], own: &[String]) -> bool {
    if everywhere.iter().any(|n| n == file) {
        return true;
    }
    let in_crate = file.strip_prefix(&format!("{krate}/")).unwrap_or(file);
    let parts: Vec<&str> = in_crate.split('/').collect();
    let (last, dirs) = parts.split_last().expect("a file");
    // The tails of the path, down to the file's name: `src/walk/apart.rs`, `walk/apart.rs`, …
    let tails = (0..dirs.len()).map(|k| {
        let mut tail = dirs[k..].join("/");
        tail.push('/');
        tail
    });
    let tails: Vec<String> = tails.chain([String::new()]).collect();
    if tails.iter().any(|t| own.contains(&format!("{t}{last}"))) {
        return true;
    }
    // A folder's mod.rs is the folder.
    *last == "mod.rs"
        && !dirs.is_empty()
        && tails[..tails.len() - 1].iter().any(|t| own.contains(t))
}

/// The sources the map must name, as paths from the root.
fn every_source() -> Vec<(String, &'static str)> {
    let root = root();
    let mut all = Vec::new();
    for krate in CRATES {
        let mut files = Vec::new();
        for dir in ["src", "tests", "examples"] {
            sources(&root.join(krate).join(dir), &mut files);
        }
        for f in files {
            let relative = f.strip_prefix(&root).expect("under the root");
            let path: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            all.push((path.join("/"), krate));
        }
    }
    all.sort();
    all
}

#[test]
fn every_source_file_is_on_architecture_mds_map() {
    let map = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let everywhere = names(&map);
    let sources = every_source();
    assert!(sources.len() > 250, "{} sources found", sources.len());
    let missing: Vec<&String> = sources
        .iter()
        .filter(|(file, krate)| !named(file, krate, &everywhere, &names(section(&map, krate))))
        .map(|(file, _)| file)
        .collect();
    assert!(
        missing.is_empty(),
        "{} source files are not on ARCHITECTURE.md's map:\n{}",
        missing.len(),
        missing
            .iter()
            .map(|m| m.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_map_check_names_a_file_by_its_path_its_tail_or_its_folder() {
    let map = "### `sim/`\nwalking (`walk/`: `apart.rs`), `astar/{board,clear}.rs`, \
               `sim/tests/layers.rs`.\n### `server/`\n`lockstep/` (`clock.rs`)\n";
    let everywhere = names(map);
    let sim = names(section(map, "sim"));
    let server = names(section(map, "server"));
    assert!(named("sim/src/walk/apart.rs", "sim", &everywhere, &sim));
    assert!(named("sim/src/walk/mod.rs", "sim", &everywhere, &sim));
    assert!(named("sim/src/astar/clear.rs", "sim", &everywhere, &sim));
    assert!(named("sim/tests/layers.rs", "sim", &everywhere, &server));
    assert!(named(
        "server/src/lockstep/clock.rs",
        "server",
        &everywhere,
        &server
    ));
    // Not named: a file nobody wrote down, a folder's other file, another crate's namesake.
    assert!(!named("sim/src/astar/search.rs", "sim", &everywhere, &sim));
    assert!(!named("sim/src/nav/mod.rs", "sim", &everywhere, &sim));
    assert!(!named(
        "sim/src/lockstep/clock.rs",
        "sim",
        &everywhere,
        &sim
    ));
    assert!(!named(
        "client-cli/src/core/clock.rs",
        "client-cli",
        &everywhere,
        &[]
    ));
}
