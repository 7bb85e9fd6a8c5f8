//! Parsers never panic: mutated and random inputs give errors, not crashes.

use chessmerge_rules::{Position, START_FEN, Variant, pgn};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const ALPHABET: &[u8] = b"KQRBNPkqrbnp()12345678/ wb-eah0x&=+#/.[]\"{};9\xc3\xa9";

fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let i = rng.below(bytes.len() + 1);
        match rng.below(3) {
            0 if i < bytes.len() => {
                bytes.remove(i);
            }
            1 if i < bytes.len() => bytes[i] = ALPHABET[rng.below(ALPHABET.len())],
            _ => bytes.insert(i, ALPHABET[rng.below(ALPHABET.len())]),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn merge_fen_reader_never_panics() {
    let seeds = [
        START_FEN,
        "rnbqkbnr/pppppppp/8/8/8/8/PPP(NP)PPPP/R1BQKBNR b KQkq - 1 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "4k3/8/8/3(pp)4/8/8/8/(RN)3K2R w K d6 0 1",
    ];
    let mut rng = Rng(99);
    let mut accepted = 0;
    for _ in 0..20_000 {
        let seed = seeds[rng.below(seeds.len())];
        let text = mutate(&mut rng, seed);
        for variant in Variant::ALL {
            if let Ok(pos) = Position::from_fen(variant, &text) {
                accepted += 1;
                // Whatever is accepted must write back and read again.
                let again =
                    Position::from_fen(variant, &pos.fen()).expect("canonical FEN reads back");
                assert_eq!(again.fen(), pos.fen());
                let _ = pos.legal_moves();
            }
        }
    }
    assert!(
        accepted > 0,
        "mutations never produced a valid FEN: the test would test nothing"
    );
}

#[test]
fn move_parsers_never_panic() {
    let mut rng = Rng(7);
    let seeds = [
        "e2e4", "Nd2f3", "e7e8q", "N&d2", "RNxe4", "P/e7e8=Q", "O-O-O", "Pe7d8n", "exd5",
    ];
    for variant in Variant::ALL {
        let pos = Position::new(variant);
        for _ in 0..5_000 {
            let seed = seeds[rng.below(seeds.len())];
            let text = mutate(&mut rng, seed);
            let _ = pos.parse_uci(&text);
            let _ = pos.parse_san(&text);
            let _ = pos.parse_move(&text);
        }
    }
}

#[test]
fn pgn_reader_never_panics() {
    let text = "[Variant \"ChessMerge\"]\n[Result \"*\"]\n\n1. e3 N&d2 {c} 2. (2. Nf3) Nf3 e6 *\n";
    let mut rng = Rng(3);
    for _ in 0..5_000 {
        let _ = pgn::read(&mutate(&mut rng, text));
    }
}

#[test]
fn errors_name_the_fault() {
    let bad = [
        ("8/8/8/8/8/8/8/8 w - - 0 1", "exactly one king"),
        (
            "rnbqkbnr/pppppppp/8p/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "more than 8 squares",
        ),
        (
            "rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "expected 8",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
            "side-to-move",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1",
            "halfmove",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 2147483648",
            "2^31",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
            "6 space-separated",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPP(Np)PPP/R1BQKBNR w KQkq - 0 1",
            "mixes colours",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPP(NPB)PPP/R2QKBNR w KQkq - 0 1",
            "at most two",
        ),
    ];
    for (fen, needle) in bad {
        let err = Position::from_fen(Variant::ChessMerge, fen)
            .unwrap_err()
            .to_string();
        assert!(err.contains(needle), "{fen}: {err}");
    }
}
