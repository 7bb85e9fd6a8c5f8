-- The whole schema for PostgreSQL, as SQLite's migrations 1-3 build it,
-- plus what several nodes need: claims of computer turns. Times are
-- milliseconds since the Unix epoch. `n` columns order rows inserted in
-- the same millisecond (SQLite's rowid does that there).
CREATE TABLE users (
    id            BIGSERIAL PRIMARY KEY,
    username      TEXT NOT NULL,
    username_key  TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at    BIGINT NOT NULL
);

-- Session cookies and personal API tokens; only a SHA-256 of the token is kept.
CREATE TABLE tokens (
    token_hash TEXT PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('session', 'api')),
    created_at BIGINT NOT NULL
);
CREATE INDEX tokens_user ON tokens(user_id);

CREATE TABLE challenges (
    id             TEXT PRIMARY KEY,
    n              BIGSERIAL,
    kind           TEXT NOT NULL CHECK (kind IN ('user', 'open', 'ai')),
    challenger_id  BIGINT NOT NULL REFERENCES users(id),
    dest_user_id   BIGINT REFERENCES users(id),
    variant        TEXT NOT NULL,
    color          TEXT NOT NULL CHECK (color IN ('white', 'black', 'random')),
    initial_fen    TEXT,
    ai_level       BIGINT,
    status         TEXT NOT NULL,
    decline_reason TEXT,
    created_at     BIGINT NOT NULL
);
CREATE INDEX challenges_dest ON challenges(dest_user_id, status);
CREATE INDEX challenges_challenger ON challenges(challenger_id, status);
CREATE INDEX challenges_open ON challenges(kind, status, created_at);

CREATE TABLE games (
    id            TEXT PRIMARY KEY,
    n             BIGSERIAL,
    variant       TEXT NOT NULL,
    initial_fen   TEXT NOT NULL,
    white_id      BIGINT REFERENCES users(id),
    black_id      BIGINT REFERENCES users(id),
    ai_level      BIGINT,
    status        TEXT NOT NULL,
    winner        TEXT,
    status_reason TEXT,
    moves         TEXT NOT NULL DEFAULT '',
    san           TEXT NOT NULL DEFAULT '',
    fen           TEXT NOT NULL,
    ply           BIGINT NOT NULL DEFAULT 0,
    version       BIGINT NOT NULL DEFAULT 1,
    draw_offer    TEXT,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);
CREATE INDEX games_white ON games(white_id, status);
CREATE INDEX games_black ON games(black_id, status);
CREATE INDEX games_ai_ongoing ON games(status, ai_level) WHERE ai_level IS NOT NULL;

-- Every change of a game, in order: version 1 is the game's creation.
CREATE TABLE game_events (
    game_id TEXT NOT NULL REFERENCES games(id),
    version BIGINT NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (game_id, version)
);

-- What a user is told and what the lobby sees, with sequence numbers.
CREATE TABLE user_events (
    seq        BIGSERIAL PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    payload    TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX user_events_user ON user_events(user_id, seq);

CREATE TABLE lobby_events (
    seq        BIGSERIAL PRIMARY KEY,
    payload    TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

-- Which node computes the computer's move at a game's ply, until when.
CREATE TABLE computer_claims (
    game_id TEXT PRIMARY KEY REFERENCES games(id),
    ply     BIGINT NOT NULL,
    node    TEXT NOT NULL,
    until   BIGINT NOT NULL
);
