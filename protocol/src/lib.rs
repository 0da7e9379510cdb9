//! cohort-protocol: wire messages, framing and files. The only crate that touches bincode.
