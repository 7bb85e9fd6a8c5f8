//! `chessmerge datagen`: self-play games at a fixed node budget, recorded
//! for tuning the evaluation (`chessmerge tune`), and the reader of the
//! files it writes.
//!
//! # The file format (version 1), plain text, one record a line
//!
//! ```text
//! chessmerge-selfplay 1 variant=chessmerge nodes=5000 seed=1 opening=6-10 max-plies=300
//! game 0 result=1-0 positions=2
//! rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1;-31
//! rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2;25
//! game 1 result=1/2-1/2 positions=0
//! ```
//!
//! - The header names the format and its version, then the settings that
//!   decide every game: the variant, the node budget per move, the seed,
//!   the number of random opening plies and the ply limit.
//! - Each game is a block, written whole once the game is over, in game
//!   order: `game <index> result=<1-0|0-1|1/2-1/2> positions=<n>`, then
//!   `n` lines `<Merge-FEN>;<score>`, the score in centipawns from
//!   **white's** view as the search gave it for that position.
//! - Recorded positions are the ones after the random opening in which
//!   the side to move is not in check, the search's move is not a capture
//!   or promotion, and the score is not a mate score: quiet positions,
//!   whose static evaluation should predict the result (Texel's method).
//!
//! Game `i` depends only on the header's settings and `i` (its opening
//! comes from the seed and `i`; the searcher is cleared before it), and
//! blocks are written in index order, so a file is the same for a seed
//! whatever the number of threads. Running the same command again on an
//! existing file resumes it: the header must match, complete blocks are
//! kept, a truncated last block is reported and replayed.

use anyhow::{Context, Result, anyhow, bail};
use chessmerge_engine::Limits;
use chessmerge_engine::search::{ReportedScore, Searcher};
use chessmerge_rules::{Color, Game, Position, Variant};
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;
use std::fmt;
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, BufWriter, IsTerminal, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};

/// The first word of every self-play file.
pub const MAGIC: &str = "chessmerge-selfplay";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// Arguments of `chessmerge datagen`.
#[derive(Debug, Clone, clap::Args)]
pub struct DatagenArgs {
    /// Variant: chessmerge, chessplus, fusion or standard.
    #[arg(long, default_value = "chessmerge")]
    pub variant: Variant,
    /// Number of games the file should hold (a resumed file is completed
    /// up to this number).
    #[arg(long)]
    pub games: usize,
    /// Nodes searched per move.
    #[arg(long, default_value_t = 5000)]
    pub nodes: u64,
    /// Output file (created, or resumed when it exists).
    #[arg(long)]
    pub out: PathBuf,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Fewest random plies before the engine takes over.
    #[arg(long, default_value_t = 6)]
    pub opening_min: usize,
    /// Most random plies before the engine takes over.
    #[arg(long, default_value_t = 10)]
    pub opening_max: usize,
    /// A game not over after this many plies is recorded as a draw.
    #[arg(long, default_value_t = 300)]
    pub max_plies: usize,
}

/// The settings that decide every game: the header of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub version: u32,
    pub variant: Variant,
    pub nodes: u64,
    pub seed: u64,
    pub opening_min: usize,
    pub opening_max: usize,
    pub max_plies: usize,
}

impl fmt::Display for Header {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{MAGIC} {} variant={} nodes={} seed={} opening={}-{} max-plies={}",
            self.version,
            self.variant.id(),
            self.nodes,
            self.seed,
            self.opening_min,
            self.opening_max,
            self.max_plies
        )
    }
}

/// A game's result from white's view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    Draw,
    BlackWins,
}

impl GameResult {
    fn text(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::Draw => "1/2-1/2",
            GameResult::BlackWins => "0-1",
        }
    }

    fn parse(s: &str) -> Option<GameResult> {
        match s {
            "1-0" => Some(GameResult::WhiteWins),
            "1/2-1/2" => Some(GameResult::Draw),
            "0-1" => Some(GameResult::BlackWins),
            _ => None,
        }
    }
}

/// One recorded position.
#[derive(Debug, Clone)]
pub struct Sample {
    pub position: Position,
    /// The search's score, centipawns, white's view.
    pub score: i32,
}

/// One game's block.
#[derive(Debug, Clone)]
pub struct GameBlock {
    pub index: usize,
    pub result: GameResult,
    pub samples: Vec<Sample>,
}

impl GameBlock {
    fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        writeln!(
            out,
            "game {} result={} positions={}",
            self.index,
            self.result.text(),
            self.samples.len()
        )?;
        for s in &self.samples {
            writeln!(out, "{};{}", s.position.fen(), s.score)?;
        }
        Ok(())
    }
}

/// A fault in a self-play file, with the line where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataError {
    /// 1-based line number.
    pub line: usize,
    pub fault: DataFault,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DataFault {
    /// The file is empty.
    Empty,
    /// The first line is not a self-play header.
    NotSelfPlay(String),
    /// A header of a format version this build does not read.
    Version(u32),
    /// A malformed header field.
    Header(String),
    /// A line that should start a game block and does not.
    GameLine(String),
    /// Game blocks must come in order 0, 1, 2, ...
    GameOrder { expected: usize, found: usize },
    /// A position line that is not `<Merge-FEN>;<score>`.
    PositionLine(String),
    /// The file ends inside a game block.
    Truncated {
        game: usize,
        expected: usize,
        found: usize,
    },
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: ", self.line)?;
        match &self.fault {
            DataFault::Empty => write!(f, "the file is empty (no header)"),
            DataFault::NotSelfPlay(w) => {
                write!(f, "not a self-play file (starts with {w:?}, not {MAGIC:?})")
            }
            DataFault::Version(v) => write!(
                f,
                "format version {v}, but this build reads version {FORMAT_VERSION}"
            ),
            DataFault::Header(why) => write!(f, "bad header: {why}"),
            DataFault::GameLine(why) => write!(f, "bad game line: {why}"),
            DataFault::GameOrder { expected, found } => {
                write!(f, "game {found} where game {expected} was expected")
            }
            DataFault::PositionLine(why) => write!(f, "bad position line: {why}"),
            DataFault::Truncated {
                game,
                expected,
                found,
            } => write!(
                f,
                "the file ends inside game {game}: {found} of its {expected} positions are present (truncated)"
            ),
        }
    }
}

impl std::error::Error for DataError {}

fn parse_header(line: &str) -> Result<Header, DataFault> {
    let mut words = line.split_whitespace();
    let first = words.next().unwrap_or("");
    if first != MAGIC {
        return Err(DataFault::NotSelfPlay(first.chars().take(40).collect()));
    }
    let version: u32 = words
        .next()
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| DataFault::Header("no format version after the name".into()))?;
    if version != FORMAT_VERSION {
        return Err(DataFault::Version(version));
    }
    let mut fields = BTreeMap::new();
    for w in words {
        let (k, v) = w
            .split_once('=')
            .ok_or_else(|| DataFault::Header(format!("{w:?} is not key=value")))?;
        fields.insert(k, v);
    }
    let get = |k: &str| {
        fields
            .get(k)
            .copied()
            .ok_or_else(|| DataFault::Header(format!("missing {k}=")))
    };
    let num = |k: &str| -> Result<u64, DataFault> {
        get(k)?
            .parse()
            .map_err(|_| DataFault::Header(format!("{k}= is not a number")))
    };
    let variant: Variant = get("variant")?
        .parse()
        .map_err(|_| DataFault::Header("unknown variant".into()))?;
    let (lo, hi) = get("opening")?
        .split_once('-')
        .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
        .ok_or_else(|| DataFault::Header("opening= is not MIN-MAX".into()))?;
    Ok(Header {
        version,
        variant,
        nodes: num("nodes")?,
        seed: num("seed")?,
        opening_min: lo,
        opening_max: hi,
        max_plies: num("max-plies")? as usize,
    })
}

fn parse_game_line(line: &str) -> Result<(usize, GameResult, usize), DataFault> {
    let bad = |why: &str| DataFault::GameLine(why.to_owned());
    let mut w = line.split_whitespace();
    if w.next() != Some("game") {
        return Err(bad("expected `game <index> result=R positions=N`"));
    }
    let index = w
        .next()
        .and_then(|i| i.parse().ok())
        .ok_or_else(|| bad("no game index"))?;
    let result = w
        .next()
        .and_then(|r| r.strip_prefix("result="))
        .and_then(GameResult::parse)
        .ok_or_else(|| bad("result= must be 1-0, 0-1 or 1/2-1/2"))?;
    let positions = w
        .next()
        .and_then(|p| p.strip_prefix("positions="))
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| bad("positions= must be a count"))?;
    if w.next().is_some() {
        return Err(bad("unexpected text after positions="));
    }
    Ok((index, result, positions))
}

fn parse_position_line(variant: Variant, line: &str) -> Result<Sample, DataFault> {
    let (fen, score) = line
        .rsplit_once(';')
        .ok_or_else(|| DataFault::PositionLine("no `;` before the score".into()))?;
    let score = score
        .trim()
        .parse()
        .map_err(|_| DataFault::PositionLine(format!("score {score:?} is not an integer")))?;
    let position = Position::from_fen(variant, fen)
        .map_err(|e| DataFault::PositionLine(format!("Merge-FEN: {e}")))?;
    Ok(Sample { position, score })
}

/// What a self-play file holds.
#[derive(Debug)]
pub struct DataFile {
    pub header: Header,
    pub games: Vec<GameBlock>,
    /// Byte length of the header and the complete game blocks.
    pub complete_len: u64,
    /// A fault after the last complete block (`None` for a sound file).
    pub fault: Option<DataError>,
}

/// Reads a self-play file, stopping at the first fault: a missing or
/// foreign header is an error; a fault after the header is returned in
/// [`DataFile::fault`] with the sound blocks before it (the resumer keeps
/// those; the tuner refuses the file).
pub fn read_file(path: &Path) -> Result<DataFile> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    read_from(BufReader::new(file)).with_context(|| format!("{}", path.display()))
}

/// Reads a self-play file for training: it must be sound (a fault is
/// reported with its line) and of `variant` (another is refused, naming
/// both); another format version is refused by the reader.
pub fn read_sound(path: &Path, variant: Variant) -> Result<DataFile> {
    let data = read_file(path)?;
    if let Some(fault) = &data.fault {
        bail!("{}: {fault}", path.display());
    }
    if data.header.variant != variant {
        bail!(
            "{}: the data is of variant {}, not {}",
            path.display(),
            data.header.variant.id(),
            variant.id()
        );
    }
    Ok(data)
}

/// A few short self-play games (400 nodes a move, at most 80 plies), for
/// the tests of the trainers.
#[cfg(test)]
pub fn sample_games(variant: Variant, n: usize) -> Vec<GameBlock> {
    let h = Header {
        version: FORMAT_VERSION,
        variant,
        nodes: 400,
        seed: 3,
        opening_min: 4,
        opening_max: 8,
        max_plies: 80,
    };
    let mut searcher = Searcher::new(1, Arc::new(AtomicBool::new(false)));
    (0..n).map(|i| play_game(&h, i, &mut searcher)).collect()
}

/// [`read_file`] on any reader.
pub fn read_from(mut reader: impl BufRead) -> Result<DataFile, DataError> {
    let mut line = String::new();
    let mut offset = 0u64;
    let mut number = 0usize;
    // One line with its newline removed; `None` at the end of the input.
    // A line that is not UTF-8 is a fault of the caller's choosing.
    let mut next = |line: &mut String| -> Result<Option<u64>, ()> {
        line.clear();
        match reader.read_line(line) {
            Ok(0) => Ok(None),
            Ok(n) => {
                // A last line without its newline was cut short.
                if !line.ends_with('\n') {
                    return Err(());
                }
                line.pop();
                if line.ends_with('\r') {
                    line.pop();
                }
                Ok(Some(n as u64))
            }
            Err(_) => Err(()),
        }
    };
    number += 1;
    let header = match next(&mut line) {
        Ok(Some(n)) => {
            offset += n;
            parse_header(&line).map_err(|fault| DataError {
                line: number,
                fault,
            })?
        }
        Ok(None) => {
            return Err(DataError {
                line: 1,
                fault: DataFault::Empty,
            });
        }
        Err(()) => {
            return Err(DataError {
                line: 1,
                fault: DataFault::Header("not a complete line of text".into()),
            });
        }
    };
    let mut data = DataFile {
        header,
        games: Vec::new(),
        complete_len: offset,
        fault: None,
    };
    let fail = |data: &mut DataFile, line: usize, fault: DataFault| {
        data.fault = Some(DataError { line, fault });
    };
    loop {
        number += 1;
        let n = match next(&mut line) {
            Ok(Some(n)) => n,
            Ok(None) => return Ok(data),
            Err(()) => {
                fail(
                    &mut data,
                    number,
                    DataFault::GameLine("not a complete line of text".into()),
                );
                return Ok(data);
            }
        };
        let (index, result, count) = match parse_game_line(&line) {
            Ok(g) => g,
            Err(fault) => {
                fail(&mut data, number, fault);
                return Ok(data);
            }
        };
        let expected = data.games.len();
        if index != expected {
            fail(
                &mut data,
                number,
                DataFault::GameOrder {
                    expected,
                    found: index,
                },
            );
            return Ok(data);
        }
        let mut block_len = n;
        let mut samples = Vec::with_capacity(count);
        for found in 0..count {
            number += 1;
            match next(&mut line) {
                Ok(Some(n)) => {
                    block_len += n;
                    match parse_position_line(header.variant, &line) {
                        Ok(s) => samples.push(s),
                        Err(fault) => {
                            fail(&mut data, number, fault);
                            return Ok(data);
                        }
                    }
                }
                Ok(None) | Err(()) => {
                    fail(
                        &mut data,
                        number,
                        DataFault::Truncated {
                            game: index,
                            expected: count,
                            found,
                        },
                    );
                    return Ok(data);
                }
            }
        }
        data.complete_len += block_len;
        data.games.push(GameBlock {
            index,
            result,
            samples,
        });
    }
}

/// Plays game `index` of a file with this header.
pub fn play_game(header: &Header, index: usize, searcher: &mut Searcher) -> GameBlock {
    searcher.clear();
    let mut game = crate::matches::opening(
        header.variant,
        header.seed,
        index,
        header.opening_min,
        header.opening_max,
    );
    let limits = Limits::nodes(header.nodes);
    let mut samples = Vec::new();
    let result = loop {
        if let Some(o) = game.outcome() {
            break match o.winner() {
                Some(Color::White) => GameResult::WhiteWins,
                Some(Color::Black) => GameResult::BlackWins,
                None => GameResult::Draw,
            };
        }
        if game.moves().len() >= header.max_plies || adjudicated_draw(&game) {
            break GameResult::Draw;
        }
        let pos = *game.position();
        searcher.stop_flag().store(false, Ordering::Relaxed);
        let r = searcher.search(&pos, game.repetition_keys(), &limits, &mut |_| {});
        let Some(m) = r.best else {
            // No legal move but no outcome cannot happen; end as a draw
            // rather than loop.
            break GameResult::Draw;
        };
        if let ReportedScore::Cp(cp) = ReportedScore::from_internal(r.score)
            && !pos.is_check()
            && !pos.is_capture(m)
            && m.promotion().is_none()
        {
            let white_view = if pos.turn() == Color::White { cp } else { -cp };
            samples.push(Sample {
                position: pos,
                score: white_view,
            });
        }
        if game.play(m).is_err() {
            // The searcher only returns legal moves; never lose a game to it.
            break GameResult::Draw;
        }
    };
    GameBlock {
        index,
        result,
        samples,
    }
}

/// The adjudications `chessmerge match` also makes: in ChessMerge (which
/// has no such rules) a threefold repetition or two lone royal units is a
/// draw.
fn adjudicated_draw(game: &Game) -> bool {
    let pos = game.position();
    if game.variant() != Variant::ChessMerge {
        return false;
    }
    let key = pos.zobrist();
    game.repetition_keys().iter().filter(|&&k| k == key).count() >= 3 || pos.occupied().count() == 2
}

/// `chessmerge datagen`.
pub fn run(args: DatagenArgs) -> Result<()> {
    if args.opening_min > args.opening_max {
        bail!("--opening-min must not exceed --opening-max");
    }
    if args.nodes == 0 {
        bail!("--nodes must be at least 1");
    }
    let header = Header {
        version: FORMAT_VERSION,
        variant: args.variant,
        nodes: args.nodes,
        seed: args.seed,
        opening_min: args.opening_min,
        opening_max: args.opening_max,
        max_plies: args.max_plies,
    };
    let (mut out, done) = open_output(&args.out, &header)?;
    if done >= args.games {
        eprintln!(
            "{} already holds {done} games (asked for {})",
            args.out.display(),
            args.games
        );
        return Ok(());
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let bar = if std::io::stderr().is_terminal() {
        let b = ProgressBar::new(args.games as u64);
        b.set_style(
            ProgressStyle::with_template(
                "{bar:40} {pos}/{len} games {msg} [{elapsed_precise}<{eta_precise}]",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b.set_position(done as u64);
        b
    } else {
        ProgressBar::hidden()
    };
    let next = AtomicUsize::new(done);
    let (tx, rx) = mpsc::channel::<GameBlock>();
    let mut positions = 0usize;
    let written = std::thread::scope(|scope| -> Result<usize> {
        for _ in 0..threads {
            let tx = tx.clone();
            let next = &next;
            let header = &header;
            scope.spawn(move || {
                let mut searcher = Searcher::new(16, Arc::new(AtomicBool::new(false)));
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= args.games {
                        return;
                    }
                    if tx.send(play_game(header, i, &mut searcher)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        // Games finish out of order; they are written in order, each
        // block whole and flushed, so a crash leaves complete games.
        let mut waiting = BTreeMap::new();
        let mut expected = done;
        for block in rx {
            waiting.insert(block.index, block);
            while let Some(block) = waiting.remove(&expected) {
                block.write_to(&mut out)?;
                out.flush()?;
                positions += block.samples.len();
                expected += 1;
                bar.set_position(expected as u64);
                bar.set_message(format!("{positions} positions"));
            }
        }
        Ok(expected - done)
    })?;
    bar.finish_and_clear();
    eprintln!(
        "{}: {} games written ({positions} positions), {} in all",
        args.out.display(),
        written,
        done + written
    );
    Ok(())
}

/// Opens `path` for appending games: a new file gets the header; an
/// existing one must have the same header, keeps its complete games, and
/// loses a damaged tail (reported). Returns the writer and the number of
/// complete games already there.
fn open_output(path: &Path, header: &Header) -> Result<(BufWriter<std::fs::File>, usize)> {
    if !path.exists() || std::fs::metadata(path)?.len() == 0 {
        let mut out = BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?,
        );
        writeln!(out, "{header}")?;
        out.flush()?;
        return Ok((out, 0));
    }
    let data = read_file(path)?;
    if data.header != *header {
        return Err(anyhow!(
            "{} was made with other settings ({}); this run's would be ({}): use another --out, or the same settings to resume",
            path.display(),
            data.header,
            header
        ));
    }
    if let Some(fault) = &data.fault {
        eprintln!(
            "{}: {fault}; keeping the {} complete games before it and replaying the rest",
            path.display(),
            data.games.len()
        );
    }
    let file = OpenOptions::new()
        .write(true)
        .open(path)
        .with_context(|| format!("cannot open {} for writing", path.display()))?;
    file.set_len(data.complete_len)?;
    let mut out = BufWriter::new(file);
    out.seek(SeekFrom::Start(data.complete_len))?;
    Ok((out, data.games.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessmerge_engine::search::splitmix as mix;

    fn header(variant: Variant) -> Header {
        Header {
            version: FORMAT_VERSION,
            variant,
            nodes: 300,
            seed: 7,
            opening_min: 4,
            opening_max: 8,
            max_plies: 40,
        }
    }

    fn file_text(variant: Variant, games: usize) -> String {
        let h = header(variant);
        let mut searcher = Searcher::new(1, Arc::new(AtomicBool::new(false)));
        let mut out = Vec::new();
        writeln!(out, "{h}").unwrap();
        for i in 0..games {
            play_game(&h, i, &mut searcher).write_to(&mut out).unwrap();
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn games_are_deterministic_and_read_back() {
        for v in Variant::ALL {
            let a = file_text(v, 2);
            let b = file_text(v, 2);
            assert_eq!(a, b, "{v}: same settings, same file");
            let data = read_from(a.as_bytes()).unwrap();
            assert!(data.fault.is_none(), "{v}: {:?}", data.fault);
            assert_eq!(data.header, header(v));
            assert_eq!(data.games.len(), 2);
            assert_eq!(data.complete_len, a.len() as u64);
            let recorded: usize = data.games.iter().map(|g| g.samples.len()).sum();
            assert!(recorded > 0, "{v}: no position recorded");
            for g in &data.games {
                for s in &g.samples {
                    assert!(!s.position.is_check());
                    assert_eq!(s.position.variant(), v);
                }
            }
        }
    }

    #[test]
    fn every_cut_of_a_file_is_reported_with_its_line_never_a_panic() {
        let text = file_text(Variant::ChessMerge, 2);
        let whole = read_from(text.as_bytes()).unwrap();
        let lines = text.lines().count();
        for cut in 0..text.len() {
            let part = &text.as_bytes()[..cut];
            match read_from(part) {
                Err(e) => assert!(e.line == 1, "cut {cut}: {e}"),
                Ok(d) => {
                    assert!(d.games.len() <= whole.games.len());
                    assert!(d.complete_len <= cut as u64);
                    if d.complete_len < cut as u64 {
                        let f = d.fault.expect("a cut inside a block is a fault");
                        assert!(f.line >= 2 && f.line <= lines, "cut {cut}: {f}");
                    }
                }
            }
        }
    }

    #[test]
    fn malformed_lines_name_the_line_and_the_fault() {
        let h = header(Variant::Standard);
        let fen = Position::new(Variant::Standard).fen();
        let cases: Vec<(String, usize, &str)> = vec![
            (String::new(), 1, "empty"),
            ("hello world\n".into(), 1, "not a self-play file"),
            (
                format!("{MAGIC} 2 variant=standard\n"),
                1,
                "format version 2",
            ),
            (
                format!("{MAGIC} 1 variant=standard\n"),
                1,
                "missing opening=",
            ),
            (format!("{h}\ngame x\n"), 2, "no game index"),
            (
                format!("{h}\ngame 1 result=1-0 positions=0\n"),
                2,
                "game 1 where game 0",
            ),
            (
                format!("{h}\ngame 0 result=2-0 positions=0\n"),
                2,
                "result=",
            ),
            (
                format!("{h}\ngame 0 result=1-0 positions=1\n{fen}\n"),
                3,
                "no `;`",
            ),
            (
                format!("{h}\ngame 0 result=1-0 positions=1\n{fen};12x\n"),
                3,
                "not an integer",
            ),
            (
                format!("{h}\ngame 0 result=1-0 positions=1\nrnbqkbnr/8 w - - 0 1;5\n"),
                3,
                "Merge-FEN",
            ),
            (
                format!("{h}\ngame 0 result=1-0 positions=2\n{fen};5\n"),
                4,
                "1 of its 2 positions",
            ),
        ];
        for (text, line, words) in cases {
            let err = match read_from(text.as_bytes()) {
                Err(e) => e,
                Ok(d) => d.fault.unwrap_or_else(|| panic!("accepted {text:?}")),
            };
            assert_eq!(err.line, line, "{text:?}: {err}");
            assert!(err.to_string().contains(words), "{text:?}: {err}");
        }
        // Random bytes never panic.
        for seed in 0..200u64 {
            let bytes: Vec<u8> = (0..64).map(|i| mix(seed * 64 + i) as u8).collect();
            let mut text = format!("{h}\n").into_bytes();
            text.extend(bytes);
            let _ = read_from(&text[..]);
        }
    }
}
