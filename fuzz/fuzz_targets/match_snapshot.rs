#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| cohort_fuzz::match_snapshot(data));
