//! Writes every target's seed inputs to `fuzz/corpus/TARGET/seed-N` (what `fuzz/run.sh` starts
//! the fuzzer from).

fn main() -> std::io::Result<()> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    for (name, _) in cohort_fuzz::TARGETS {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir)?;
        for (i, seed) in cohort_fuzz::seeds(name).iter().enumerate() {
            std::fs::write(dir.join(format!("seed-{i}")), seed)?;
        }
    }
    Ok(())
}
