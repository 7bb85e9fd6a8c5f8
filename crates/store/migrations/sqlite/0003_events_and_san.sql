-- Events are born in the store: what a user is told and what the lobby
-- sees are stored with sequence numbers, like a game's states, so that a
-- follower that lagged or reconnected reads exactly what it missed.
CREATE TABLE user_events (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    payload    TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX user_events_user ON user_events(user_id, seq);

CREATE TABLE lobby_events (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    payload    TEXT NOT NULL,
    created_at INTEGER NOT NULL
);

-- Each move's readable notation, stored once when the move is played, so
-- that views and exports do not replay the game to recompute it.
ALTER TABLE games ADD COLUMN san TEXT NOT NULL DEFAULT '';
