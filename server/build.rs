//! Generates the Agones SDK's gRPC code from the SDK's own proto files (`agones-proto/`, copied
//! from the Agones SDK), with no system `protoc`: protox (a protobuf compiler in Rust) parses
//! them into descriptors and tonic-build writes the Rust code into `OUT_DIR`:
//!
//! - `agones-client/`: the client side of the SDK's services, which `src/agones/sdk.rs` wraps
//!   to talk to the SDK sidecar;
//! - `agones-server/`: the server side, for the sidecar stand-in of `tests/agones.rs` (the
//!   server's own code never uses it).

use std::path::PathBuf;

/// The SDK's services: the stable `agones.dev.sdk.SDK` and the beta one (Counters and Lists).
const PROTOS: [&str; 2] = [
    "agones-proto/sdk/sdk.proto",
    "agones-proto/sdk/beta/beta.proto",
];

/// Where their imports are found (the same include paths the Agones SDK builds with; the
/// `google/protobuf/` well-known types come with protox).
const INCLUDES: [&str; 4] = [
    "agones-proto/googleapis",
    "agones-proto/grpc-gateway",
    "agones-proto/sdk/beta",
    "agones-proto/sdk",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=agones-proto");
    let descriptors = protox::compile(PROTOS, INCLUDES)?;
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    for (side, client) in [("agones-client", true), ("agones-server", false)] {
        let dir = out.join(side);
        std::fs::create_dir_all(&dir)?;
        tonic_build::configure()
            .build_client(client)
            .build_server(!client)
            .out_dir(dir)
            .compile_fds(descriptors.clone())?;
    }
    Ok(())
}
