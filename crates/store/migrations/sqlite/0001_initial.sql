-- Accounts, tokens, challenges, games and per-game event history.
CREATE TABLE users (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    username      TEXT NOT NULL,
    username_key  TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at    INTEGER NOT NULL
);

-- Session cookies and personal API tokens; only a SHA-256 of the token is kept.
CREATE TABLE tokens (
    token_hash TEXT PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('session', 'api')),
    created_at INTEGER NOT NULL
);
CREATE INDEX tokens_user ON tokens(user_id);

CREATE TABLE challenges (
    id             TEXT PRIMARY KEY,
    kind           TEXT NOT NULL CHECK (kind IN ('user', 'open', 'ai')),
    challenger_id  INTEGER NOT NULL REFERENCES users(id),
    dest_user_id   INTEGER REFERENCES users(id),
    variant        TEXT NOT NULL,
    color          TEXT NOT NULL CHECK (color IN ('white', 'black', 'random')),
    initial_fen    TEXT,
    ai_level       INTEGER,
    status         TEXT NOT NULL,
    decline_reason TEXT,
    created_at     INTEGER NOT NULL
);
CREATE INDEX challenges_dest ON challenges(dest_user_id, status);
CREATE INDEX challenges_challenger ON challenges(challenger_id, status);

CREATE TABLE games (
    id            TEXT PRIMARY KEY,
    variant       TEXT NOT NULL,
    initial_fen   TEXT NOT NULL,
    white_id      INTEGER REFERENCES users(id),
    black_id      INTEGER REFERENCES users(id),
    ai_level      INTEGER,
    status        TEXT NOT NULL,
    winner        TEXT,
    status_reason TEXT,
    moves         TEXT NOT NULL DEFAULT '',
    fen           TEXT NOT NULL,
    ply           INTEGER NOT NULL DEFAULT 0,
    version       INTEGER NOT NULL DEFAULT 1,
    draw_offer    TEXT,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
CREATE INDEX games_white ON games(white_id, status);
CREATE INDEX games_black ON games(black_id, status);

-- Every change of a game, in order: version 1 is the game's creation.
CREATE TABLE game_events (
    game_id TEXT NOT NULL REFERENCES games(id),
    version INTEGER NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (game_id, version)
) WITHOUT ROWID;
