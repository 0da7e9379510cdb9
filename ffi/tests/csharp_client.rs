//! Proof from C#: docs/examples/CohortClient.cs, compiled with Mono's `mcs` (Debian's
//! `mono-mcs`) and run with `mono` — P/Invoke into libcohort_ffi, the declarations
//! docs/EMBEDDING.md shows — joins a real server beside a `cohort bot`, plays 300 turns giving
//! orders for its own units, and every hash it sends is the server's. Without `mcs` or `mono`
//! the test fails, saying what to install (`.ci/run` installs them).

mod common;

use common::*;
use std::process::Command;

fn present(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_csharp_program_plays_300_turns_with_the_servers_hashes() {
    assert!(
        present("mcs") && present("mono"),
        "the C# client needs Mono: apt-get install mono-mcs mono-runtime (.ci/run does)"
    );
    let dir = scratch("cs");
    let exe = dir.join("CohortClient.exe");
    let out = Command::new("mcs")
        .args(["-unsafe", "-warnaserror"])
        .arg(format!("-out:{}", exe.display()))
        .arg(root().join("docs/examples/CohortClient.cs"))
        .output()
        .expect("mcs runs");
    assert!(
        out.status.success(),
        "mcs failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let lib_dir = library().parent().unwrap().to_path_buf();
    let run = play_beside_a_bot("cs-client", 2, |server, fingerprint, token| {
        let mut c = Command::new("mono");
        c.arg(&exe)
            .args([server, fingerprint, token])
            .env("LD_LIBRARY_PATH", &lib_dir);
        c
    })
    .await;
    assert!(
        run.stdout.contains("joined default as player 0"),
        "{}",
        run.stdout
    );
}

/// Every C# declaration docs/EMBEDDING.md shows is one the compiled example holds.
#[test]
fn the_embedding_docs_csharp_declarations_are_the_compiled_ones() {
    let doc = std::fs::read_to_string(root().join("docs/EMBEDDING.md")).unwrap();
    let example = std::fs::read_to_string(root().join("docs/examples/CohortClient.cs")).unwrap();
    let block = doc
        .split("```csharp")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a csharp block in docs/EMBEDDING.md");
    let mut checked = 0;
    for line in block.lines().map(str::trim) {
        let declaration = line.starts_with("[DllImport")
            || line.starts_with("public ")
            || line.starts_with("[StructLayout")
            || line.contains(" struct ");
        if declaration {
            assert!(
                example.contains(line),
                "docs/EMBEDDING.md declares `{line}`, which docs/examples/CohortClient.cs does not"
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} declarations checked");
}
