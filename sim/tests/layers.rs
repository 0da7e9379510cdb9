//! The sim's layers (ARCHITECTURE.md, "Layers"): no module of `sim/src` imports one above it.
//!
//! Read from the source: every `crate::<module>` path in code (comments and `#[cfg(test)]`
//! modules aside, which may build their worlds with anything) names a module at the same layer
//! or below: the passes take the parts of a world they touch (`nav::View`, `nav::Tick`), never the
//! `World` façade above them. A name the crate root re-exports (`crate::World`,
//! `crate::EntityId`) is the module it comes from: lib.rs's `pub use`, followed through the
//! module's own `pub use crate::…` to where the name is defined (`crate::EntityId` is `world`'s
//! re-export of `id`'s, at `id`'s layer; `crate::World` is `world`'s).

use std::path::{Path, PathBuf};

/// The layers, bottom first; modules on one line are one layer and may import each other.
const LAYERS: &[&[&str]] = &[
    &["position", "id", "canon", "command"],
    &["ruleset"],
    &["grid"],
    &["astar"],
    &["state", "hash"],
    &["nav"],
    &["walk"],
    &["formation"],
    &["tick"],
    &["world"],
    &["map"],
    &["scenario"],
    &["verify", "soak"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The `pub use` statements of `text`, each on one line (a braced list joined up to its `;`).
fn pub_uses(text: &str) -> Vec<String> {
    let mut uses = Vec::new();
    let mut open: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        match open.as_mut() {
            Some(statement) => statement.push_str(line),
            None if line.starts_with("pub use ") => open = Some(line.to_string()),
            None => continue,
        }
        if line.ends_with(';') {
            uses.extend(open.take());
        }
    }
    uses
}

/// Whether `statement` (a `use`) brings in the name `name`, as itself.
fn brings(statement: &str, name: &str) -> bool {
    statement
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| word == name)
}

/// The module that defines `name`, which module `module` (a top-level module) has or
/// re-exports: followed through its `pub use crate::other::…` to `other`, and on.
fn origin_in(module: &str, name: &str) -> String {
    let file = [format!("{module}.rs"), format!("{module}/mod.rs")]
        .iter()
        .map(|f| src().join(f))
        .find(|f| f.exists())
        .unwrap_or_else(|| panic!("module `{module}` has a file"));
    let text = std::fs::read_to_string(file).expect("read the module");
    for statement in pub_uses(&text) {
        if let Some(path) = statement.strip_prefix("pub use crate::") {
            let other: String = path
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if other != module && brings(path, name) {
                return origin_in(&other, name);
            }
        }
    }
    module.to_string()
}

/// The module a name the crate root re-exports (`crate::World`) comes from; none for a name
/// lib.rs does not re-export.
fn root_origin(name: &str) -> Option<String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("read lib.rs");
    pub_uses(&lib).iter().find_map(|statement| {
        let path = statement.strip_prefix("pub use ")?;
        let module: String = path
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        brings(&path[module.len()..], name).then(|| origin_in(&module, name))
    })
}

/// The top-level module a source file belongs to (`nav/route.rs` → `nav`, `id.rs` → `id`).
fn module_of(relative: &Path) -> String {
    let first = relative.components().next().expect("a path inside src");
    let name = first.as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_string()
}

/// The code of a file: comments and `#[cfg(test)]` modules blanked, line by line.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((n, line)) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|(_, next)| next.trim_start().starts_with("mod "))
        {
            // Skip the test module: to the brace that closes its first.
            let mut depth = 0i64;
            let mut opened = false;
            for (_, l) in lines.by_ref() {
                depth += l.matches('{').count() as i64 - l.matches('}').count() as i64;
                opened |= l.contains('{');
                if opened && depth <= 0 {
                    break;
                }
            }
            continue;
        }
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        out.push((n + 1, code.to_string()));
    }
    out
}

/// Every `crate::module::…` path in `code`, with the module and the text up to the path's end.
fn crate_paths(code: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        let end = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':' || c == '{'))
            .unwrap_or(after.len());
        let path = &after[..end];
        let module: String = path
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        found.push((module, format!("crate::{}", path.trim_end_matches(':'))));
        rest = &after[end..];
    }
    found
}

/// The upward imports in one file of module `from`: (line, path, why).
fn upward(from: &str, text: &str) -> Vec<(usize, String, String)> {
    let Some(own) = layer_of(from) else {
        return vec![(0, from.to_string(), "module has no layer".into())];
    };
    let mut bad = Vec::new();
    for (n, code) in code_lines(text) {
        for (module, path) in crate_paths(&code) {
            if module.is_empty() {
                bad.push((n, path, "name the module: one `use` per module".into()));
                continue;
            }
            // A module, or a name the crate root re-exports (`crate::Ruleset`): where it is from.
            let Some(origin) = layer_of(&module)
                .map(|_| module.clone())
                .or_else(|| root_origin(&module))
            else {
                bad.push((
                    n,
                    path,
                    format!("`{module}` is neither a module nor a name lib.rs re-exports"),
                ));
                continue;
            };
            let Some(theirs) = layer_of(&origin) else {
                bad.push((n, path, format!("`{origin}` has no layer")));
                continue;
            };
            if theirs > own {
                bad.push((
                    n,
                    path,
                    format!("`{from}` imports `{module}` (of `{origin}`), a layer above it"),
                ));
            }
        }
    }
    bad
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_of_the_sim_imports_one_above_it() {
    let src = src();
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut bad = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).expect("under src");
        // `lib.rs` names every module; a `tests.rs` is a `#[cfg(test)] mod tests;` of its own.
        if relative == Path::new("lib.rs") {
            continue;
        }
        if relative.ends_with("tests.rs") {
            let parent = std::fs::read_to_string(file.with_file_name("mod.rs")).expect("mod.rs");
            assert!(
                parent.contains("#[cfg(test)]\nmod tests;"),
                "{} is test code only when its mod.rs declares it under #[cfg(test)]",
                relative.display()
            );
            continue;
        }
        let from = module_of(relative);
        let text = std::fs::read_to_string(file).expect("read source");
        for (n, path, why) in upward(&from, &text) {
            bad.push(format!("{}:{n}: {path}: {why}", relative.display()));
        }
    }
    assert!(
        files.len() > 50,
        "the sim's sources were found: {}",
        files.len()
    );
    assert!(bad.is_empty(), "upward imports:\n{}", bad.join("\n"));
}

#[test]
fn every_top_level_module_of_the_sim_has_a_layer() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("read lib.rs");
    let modules: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';'))
        .collect();
    assert!(modules.len() > 10, "modules found in lib.rs: {modules:?}");
    for m in modules {
        assert!(layer_of(m).is_some(), "module `{m}` has no layer in LAYERS");
    }
}

#[test]
fn the_check_sees_an_upward_import_and_passes_a_downward_one() {
    let text =
        "use crate::position::Vec2;\nuse crate::walk::Stepper;\n// crate::tick in a comment\n";
    let bad = upward("nav", text);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(bad[0].0, 2);
    assert_eq!(bad[0].1, "crate::walk::Stepper");
    // Inline paths count too; test modules do not.
    let inline = "fn f() { crate::scenario::run(); }\n#[cfg(test)]\nmod tests {\n    use crate::map::parse_ascii;\n}\n";
    let bad = upward("grid", inline);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(bad[0].1, "crate::scenario::run");
    // A grouped import names no module and is refused.
    assert_eq!(upward("tick", "use crate::{nav::Survey, walk};\n").len(), 1);
    // The façade is above every pass.
    assert_eq!(upward("walk", "use crate::world::World;\n").len(), 1);
}

#[test]
fn a_name_the_crate_root_re_exports_is_at_the_layer_it_comes_from() {
    assert_eq!(root_origin("World").as_deref(), Some("world"));
    assert_eq!(root_origin("Ruleset").as_deref(), Some("ruleset"));
    // `world` re-exports it from `id`.
    assert_eq!(root_origin("EntityId").as_deref(), Some("id"));
    assert_eq!(root_origin("NoSuchName"), None);
    // The façade, by its root name, is above the passes; an id is not.
    let bad = upward("nav", "use crate::World;\nfn f(a: crate::EntityId) {}\n");
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(bad[0].1, "crate::World");
    assert_eq!(upward("grid", "use crate::Command;\n").len(), 0);
    assert_eq!(upward("position", "use crate::Ruleset;\n").len(), 1);
    // A name that is neither a module nor re-exported is refused.
    assert_eq!(upward("tick", "use crate::Nothing;\n").len(), 1);
}
