//! The server's layers only point down: a module may import from its own
//! floor or the floors below it, never from one above. This test reads the
//! `crate::` paths of every source file (comments left out) and fails on an
//! upward one, so the layering `docs/architecture.md` draws cannot drift.
//! It also fails on a handler (`src/api/`) that reaches the store itself:
//! handlers call the domains, and the domains the store.
//!
//! Adding a module: give it a floor in [`FLOORS`] (the test fails on a file
//! or a `crate::` name it does not know).
//!
//! The wire types (`crates/wire`) are below the server and the store: that
//! crate depends on no crate of the workspace, and the server reaches it
//! through `views` only (the shapes floor re-exports it).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The floors from the top down, and the modules (top-level names under
/// `crate::`, or files and folders of `src/`) on each. The store and the
/// model are a crate of their own below all of these.
const FLOORS: &[(&str, &[&str])] = &[
    // The wiring: `serve` and its arguments, opening the store, logging.
    (
        "app",
        &[
            "lib",
            "ServeArgs",
            "serve",
            "run",
            "open_store",
            "init_logging",
        ],
    ),
    // The HTTP and WebSocket edge: routes and handlers (`api/`), the state
    // they share (`state.rs`, whose types `lib.rs` re-exports), and the
    // plumbing below them (`edge/`: the accept loop, the Host check,
    // credentials, extractors, the one API error, the embedded page).
    (
        "edge",
        &[
            "api",
            "state",
            "AppState",
            "Settings",
            "LimitArgs",
            "edge",
            "auth",
            "connections",
            "error",
            "extract",
            "web",
        ],
    ),
    // The domains (`domain/`), each with its own state, tested without a
    // server; `lib.rs` re-exports them under their short paths.
    (
        "domain",
        &[
            "domain",
            "accounts",
            "games",
            "challenges",
            "computer",
            "review",
            "live",
            "live_analysis",
            "notices",
            "presence",
            "profile",
        ],
    ),
    // The wire shapes of what the domains produce.
    ("shapes", &["views"]),
    // Plumbing every floor may use, and the store crate's re-exports.
    (
        "ground",
        &[
            "blocking",
            "shutdown",
            "store",
            "model",
            "ratings",
            "now_ms",
            "Store",
            "SqliteStore",
            "PgStore",
        ],
    ),
];

fn floor_of(name: &str) -> Option<usize> {
    FLOORS.iter().position(|(_, names)| names.contains(&name))
}

/// The module a source file belongs to: its first path component under
/// `src/`, without `.rs` (`src/api/board.rs` is `api`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("file under src");
    let first = rel.components().next().expect("a component");
    let first = first.as_os_str().to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The Rust files under `dir`, in order; more than `least` of them (a
/// folder read wrong finds nothing, and nothing has no faults).
fn sorted_files(dir: &Path, least: usize) -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    files.sort();
    assert!(
        files.len() > least,
        "found only {} files in {}",
        files.len(),
        dir.display()
    );
    files
}

/// The top-level names a file reaches through `crate::`: `crate::games::X`
/// gives `games`; `use crate::{AppState, auth::AuthUser}` gives both
/// `AppState` and `auth`. Line comments (doc comments included) are skipped.
fn crate_names(text: &str) -> BTreeSet<String> {
    let code = code_of(text);
    let mut names = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue; // e.g. `chessmerge_store::...`'s own `crate::` is not ours
        }
        if let Some(group) = rest.strip_prefix('{') {
            // A use group: the first segment of each top-level item.
            let mut depth = 0usize;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.insert(first_segment(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 {
                    item.push(c);
                }
            }
            names.insert(first_segment(&item));
        } else {
            names.insert(first_segment(rest));
        }
    }
    names.remove("");
    names
}

/// The text without line comments (doc comments included).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Where a handler's code reaches the store itself rather than a domain:
/// it names the `Store` type or the store crate, reads a `.store` field,
/// or calls a `.store()` accessor. The store crate's rows and enums (what
/// the domains return) may be named; `x.store(value)` (an atomic's store)
/// is not the store.
fn store_reaches(text: &str) -> Vec<String> {
    let code = code_of(text);
    let mut found = Vec::new();
    for (i, _) in code.match_indices("Store") {
        let before = code[..i].chars().next_back();
        let after = code[i + "Store".len()..].chars().next();
        if !before.is_some_and(is_ident) && !after.is_some_and(is_ident) {
            found.push("names the `Store` type".to_string());
        }
    }
    if code.contains("chessmerge_store") {
        found.push("names the store crate".to_string());
    }
    for (i, _) in code.match_indices(".store") {
        let rest = &code[i + ".store".len()..];
        if rest.starts_with(is_ident) {
            continue; // `.stored`, `.store_stats`: another name
        }
        let rest = rest.trim_start();
        if !rest.starts_with('(') {
            found.push("reads a `.store` field".to_string());
        } else if rest[1..].trim_start().starts_with(')') {
            found.push("calls `.store()`".to_string());
        }
    }
    found
}

fn first_segment(s: &str) -> String {
    s.trim()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

#[test]
fn no_module_imports_from_a_floor_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = sorted_files(&src, 10);

    let mut faults = Vec::new();
    for file in &files {
        let module = module_of(&src, file);
        let Some(own) = floor_of(&module) else {
            faults.push(format!(
                "{}: module `{module}` has no floor",
                file.display()
            ));
            continue;
        };
        let text = fs::read_to_string(file).expect("readable source file");
        for name in crate_names(&text) {
            match floor_of(&name) {
                None => faults.push(format!(
                    "{}: `crate::{name}` names nothing with a floor",
                    file.display()
                )),
                Some(target) if target < own => faults.push(format!(
                    "{}: `{module}` ({}) imports `crate::{name}` from the floor above ({})",
                    file.display(),
                    FLOORS[own].0,
                    FLOORS[target].0
                )),
                Some(_) => {}
            }
        }
    }
    assert!(faults.is_empty(), "layer faults:\n{}", faults.join("\n"));
}

#[test]
fn handlers_reach_the_store_only_through_domains() {
    let files = sorted_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/api"), 5);
    let mut faults = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).expect("readable source file");
        for what in store_reaches(&text) {
            faults.push(format!("{}: {what}", file.display()));
        }
    }
    assert!(
        faults.is_empty(),
        "handlers reaching the store (call a domain instead):\n{}",
        faults.join("\n")
    );
}

#[test]
fn the_store_reader_sees_fields_types_and_accessors() {
    let text = "use crate::store::{User, StoreError};\n\
                stop.store(true, Ordering::Relaxed); // state.store.x\n\
                let s = state.games.store_stats();";
    assert!(store_reaches(text).is_empty());
    let text = "use crate::store::{Store, User};\n\
                let u = state\n    .store\n    .user_by_id(id);\n\
                let g = state.games.store( ).stats();\n\
                chessmerge_store::now_ms();";
    assert_eq!(
        store_reaches(text),
        [
            "names the `Store` type",
            "names the store crate",
            "reads a `.store` field",
            "calls `.store()`"
        ]
    );
}

#[test]
fn the_wire_crate_is_below_the_server_and_the_store() {
    let server = Path::new(env!("CARGO_MANIFEST_DIR"));
    let wire = server.join("../wire");
    let manifest = fs::read_to_string(wire.join("Cargo.toml")).expect("the wire crate's manifest");
    let mut faults = Vec::new();
    let mut section = String::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.to_owned();
        } else if section.contains("dependencies") && line.starts_with("chessmerge") {
            faults.push(format!("crates/wire/Cargo.toml {section}: {line}"));
        }
    }
    let mut files = Vec::new();
    rust_files(&wire.join("src"), &mut files);
    for file in &files {
        let text = fs::read_to_string(file).expect("readable source file");
        if text.contains("chessmerge_") {
            faults.push(format!(
                "{}: names a crate of the workspace",
                file.display()
            ));
        }
    }
    // In the server, only the shapes floor names it.
    let src = server.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    for file in &files {
        let text = fs::read_to_string(file).expect("readable source file");
        if module_of(&src, file) != "views" && text.contains("chessmerge_wire") {
            faults.push(format!(
                "{}: names `chessmerge_wire` (use `crate::views`)",
                file.display()
            ));
        }
    }
    assert!(faults.is_empty(), "wire faults:\n{}", faults.join("\n"));
}

#[test]
fn the_reader_sees_use_groups_and_skips_comments() {
    let text = "use crate::{AppState, auth::{AuthUser, AuthVia}, now_ms};\n\
                // crate::api::hidden\n\
                let x = crate::games::play(1); /// crate::review\n\
                use chessmerge_store::crate_like;";
    let names: Vec<_> = crate_names(text).into_iter().collect();
    assert_eq!(names, ["AppState", "auth", "games", "now_ms"]);
}
