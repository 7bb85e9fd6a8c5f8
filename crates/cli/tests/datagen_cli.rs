//! `chessmerge datagen` through the real binary: a tiny run in every
//! variant, the same file for a seed whatever the thread count, resuming
//! (after a normal stop and after a truncation), and refusals.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_chessmerge");

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("chessmerge-datagen-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn datagen(out: &Path, variant: &str, games: usize, threads: usize) -> Output {
    Command::new(BIN)
        .args([
            "datagen",
            "--variant",
            variant,
            "--nodes",
            "300",
            "--max-plies",
            "60",
        ])
        .args([
            "--seed",
            "5",
            "--games",
            &games.to_string(),
            "--threads",
            &threads.to_string(),
        ])
        .arg("--out")
        .arg(out)
        .output()
        .expect("run chessmerge datagen")
}

fn ok(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "datagen failed: {err}");
    err
}

#[test]
fn datagen_writes_the_same_file_for_a_seed_and_resumes() {
    let dir = scratch("resume");
    for variant in ["chessmerge", "chessplus", "fusion", "standard"] {
        let one = dir.join(format!("{variant}-one.txt"));
        let two = dir.join(format!("{variant}-two.txt"));
        ok(&datagen(&one, variant, 3, 1));
        // Two games on two threads, then resumed to three.
        ok(&datagen(&two, variant, 2, 2));
        let said = ok(&datagen(&two, variant, 3, 2));
        assert!(said.contains("1 games written"), "{said}");
        let a = std::fs::read_to_string(&one).unwrap();
        let b = std::fs::read_to_string(&two).unwrap();
        assert_eq!(a, b, "{variant}: resumed two-thread file differs");
        assert!(a.starts_with(&format!(
            "chessmerge-selfplay 1 variant={variant} nodes=300 seed=5"
        )));
        assert_eq!(a.lines().filter(|l| l.starts_with("game ")).count(), 3);
        assert!(
            a.lines().any(|l| l.contains(';')),
            "{variant}: no position recorded"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn datagen_replays_a_truncated_game_and_refuses_other_settings() {
    let dir = scratch("truncated");
    let whole = dir.join("whole.txt");
    let cut = dir.join("cut.txt");
    ok(&datagen(&whole, "chessmerge", 2, 1));
    let text = std::fs::read_to_string(&whole).unwrap();
    // Cut inside the second game's block, mid-line.
    let second = text.find("\ngame 1 ").expect("two games") + 1;
    let end = second + text[second..].find('\n').unwrap() + 10;
    std::fs::write(&cut, &text[..end.min(text.len() - 1)]).unwrap();
    let said = ok(&datagen(&cut, "chessmerge", 2, 1));
    assert!(said.contains("line "), "{said}");
    assert!(said.contains("keeping the 1 complete games"), "{said}");
    assert_eq!(std::fs::read_to_string(&cut).unwrap(), text);

    // Other settings: refused, naming both, and the file is untouched.
    let o = datagen(&whole, "fusion", 3, 1);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("other settings") && err.contains("variant=fusion"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&whole).unwrap(), text);

    // Not a self-play file at all: the line and the fault.
    let foreign = dir.join("foreign.txt");
    std::fs::write(&foreign, "hello\n").unwrap();
    let o = datagen(&foreign, "chessmerge", 1, 1);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("line 1") && err.contains("not a self-play file"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
