//! ffi/include/cohort.h is what cbindgen makes of ffi/src today (build.rs writes it to
//! OUT_DIR): this fails when the committed header is stale.
//! `COHORT_BLESS=1 cargo test -p cohort-ffi --test header` rewrites it.

#[test]
fn the_committed_header_is_what_cbindgen_generates() {
    let fresh = include_str!(concat!(env!("OUT_DIR"), "/cohort.h"));
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/include/cohort.h");
    if std::env::var_os("COHORT_BLESS").is_some() {
        std::fs::write(path, fresh).expect("writing include/cohort.h");
        return;
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == fresh,
        "ffi/include/cohort.h is stale: run `COHORT_BLESS=1 cargo test -p cohort-ffi --test \
         header` and commit it"
    );
}

/// Every `COHORT_…` name the header's comments and docs/EMBEDDING.md use is one the header
/// defines (a constant or an enum's value): `COHORT_EVENT_NONE` for `COHORT_EVENT_KIND_NONE`
/// fails here.
#[test]
fn every_name_the_header_and_the_embedding_doc_use_is_defined() {
    let header = include_str!("../include/cohort.h");
    let doc = include_str!("../../docs/EMBEDDING.md");
    let defined: std::collections::BTreeSet<&str> = header
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let name = l
                .strip_prefix("#define ")
                .map(|r| r.split_whitespace().next().unwrap_or(""))
                .or_else(|| l.split([' ', ',']).next())?;
            name.starts_with("COHORT_").then_some(name)
        })
        .collect();
    // Names that are not C constants: a name `cohort_status_name` returns, environment variables.
    let not_constants = [
        "COHORT_STATUS_UNKNOWN",
        "COHORT_BLESS",
        "COHORT_RULESET",
        "COHORT_FINGERPRINT",
    ];
    for (what, text) in [("ffi/include/cohort.h", header), ("docs/EMBEDDING.md", doc)] {
        let mut rest = text;
        while let Some(i) = rest.find("COHORT_") {
            let tail = &rest[i..];
            let end = tail
                .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
                .unwrap_or(tail.len());
            let name = tail[..end].trim_end_matches('_');
            let part_of_a_word = i > 0 && rest.as_bytes()[i - 1].is_ascii_alphanumeric();
            if !part_of_a_word && !not_constants.contains(&name) {
                assert!(
                    defined.contains(name),
                    "{what} names {name}, which the header does not define"
                );
            }
            rest = &tail[end.max(1)..];
        }
    }
}
