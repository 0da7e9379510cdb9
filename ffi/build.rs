//! Generates the C header from ffi/src with cbindgen into `$OUT_DIR/cohort.h`; the committed
//! `include/cohort.h` must equal it (tests/header.rs checks, and rewrites it with
//! `COHORT_BLESS=1`).

use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    cbindgen::Builder::new()
        .with_config(config)
        .with_src(dir.join("src/lib.rs"))
        .generate()
        .expect("cbindgen reads ffi/src")
        .write_to_file(out.join("cohort.h"));
}
