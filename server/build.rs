//! Builds the server side of the Agones SDK's gRPC services from the SDK's own proto files
//! (`agones-proto/`, copied from the `agones` crate this server's client comes from), for the
//! sidecar stand-in of `tests/agones.rs`. The server's own code never uses it; the `agones`
//! crate builds the client from the same files.

fn main() {
    println!("cargo:rerun-if-changed=agones-proto");
    tonic_build::configure()
        .build_client(false)
        .build_server(true)
        .compile_protos(
            &["agones-proto/sdk/sdk.proto", "agones-proto/sdk/beta/beta.proto"],
            &[
                "agones-proto/googleapis",
                "agones-proto/grpc-gateway",
                "agones-proto/sdk/beta",
                "agones-proto/sdk",
            ],
        )
        .expect("compiling the Agones SDK's proto files (needs protoc: apt-get install protobuf-compiler)");
}
