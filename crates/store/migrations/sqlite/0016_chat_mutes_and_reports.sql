-- Players a player has muted: their lines in game chats are not shown to
-- them (docs/api.md, "Chat").
CREATE TABLE mutes (
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    muted_id   INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, muted_id)
);
CREATE INDEX mutes_muted ON mutes(muted_id);

-- Players' reports of others (a chat line, or their conduct), for the
-- operator (`chessmerge user reports`).
CREATE TABLE reports (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    reporter_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    reported_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    reason      TEXT NOT NULL,
    text        TEXT NOT NULL,
    game_id     TEXT REFERENCES games(id),
    created_at  INTEGER NOT NULL,
    closed_at   INTEGER
);
CREATE INDEX reports_open ON reports(closed_at, created_at);
CREATE INDEX reports_reporter ON reports(reporter_id, closed_at);
