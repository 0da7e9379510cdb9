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
