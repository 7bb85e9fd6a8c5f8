//! `chessmerge perft`: the binding output format (spec §1.3) and exit codes.

use std::process::Command;

fn perft(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_chessmerge"))
        .arg("perft")
        .args(args)
        .output()
        .expect("run chessmerge");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn total_only_without_divide() {
    let (code, out, _) = perft(&["--variant", "standard", "--depth", "3"]);
    assert_eq!(code, 0);
    assert_eq!(out, "Nodes searched: 8902\n");
}

#[test]
fn divide_lists_root_moves_then_blank_line_then_total() {
    let (code, out, _) = perft(&["--variant", "chessmerge", "--depth", "2", "--divide"]);
    assert_eq!(code, 0);
    let (rows, total) = out.split_once("\n\n").expect("blank line before the total");
    let mut sum = 0;
    let mut moves = Vec::new();
    for row in rows.lines() {
        let (m, n) = row.split_once(": ").expect("MOVE: COUNT");
        sum += n.parse::<u64>().unwrap();
        moves.push(m.to_owned());
    }
    assert_eq!(moves.len(), 26);
    assert!(
        moves.contains(&"b1d2".to_owned()),
        "the knight may merge onto d2"
    );
    assert_eq!(total, format!("Nodes searched: {sum}\n"));
    assert_eq!(sum, 676);
}

#[test]
fn fen_defaults_to_start_and_accepts_pairs() {
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPP(NP)PPPP/R1BQKBNR b KQkq - 1 1";
    let (code, out, _) = perft(&["--variant", "chessmerge", "--fen", fen, "--depth", "1"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("Nodes searched: "));
}

#[test]
fn bad_input_exits_2_with_one_line_naming_the_fault() {
    for (args, needle) in [
        (
            vec!["--variant", "shogi", "--depth", "1"],
            "unknown variant",
        ),
        (
            vec![
                "--variant",
                "standard",
                "--fen",
                "8/8/8 w - - 0 1",
                "--depth",
                "1",
            ],
            "board field",
        ),
        (
            vec![
                "--variant",
                "chessmerge",
                "--fen",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/(KR)NBQ1BNR w - - 0 1",
                "--depth",
                "1",
            ],
            "kings cannot merge",
        ),
    ] {
        let (code, out, err) = perft(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty());
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{err}");
    }
}

/// A reader that stops early (`chessmerge perft --divide | head -1`) is a
/// normal end, as for any command line tool: exit 0, nothing on standard
/// error. The pipe's reading end is closed before the run, so that the
/// first write already finds it gone.
#[test]
fn a_closed_pipe_on_standard_output_is_a_quiet_success() {
    for divide in [false, true] {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let mut args = vec!["perft", "--variant", "chessmerge", "--depth", "2"];
        if divide {
            args.push("--divide");
        }
        let out = Command::new(env!("CARGO_BIN_EXE_chessmerge"))
            .args(&args)
            .stdout(writer)
            .output()
            .expect("run chessmerge");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert_eq!(err, "", "{args:?}");
    }
}
