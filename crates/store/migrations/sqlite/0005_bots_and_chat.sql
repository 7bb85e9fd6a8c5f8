-- Bot accounts (lichess's BOT title: they play only through the bot API),
-- and the chat of games (the bot API's chat, shown on the game page).
ALTER TABLE users ADD COLUMN bot INTEGER NOT NULL DEFAULT 0;

CREATE TABLE chat_lines (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id    TEXT NOT NULL REFERENCES games(id),
    user_id    INTEGER NOT NULL REFERENCES users(id),
    room       TEXT NOT NULL CHECK (room IN ('player', 'spectator')),
    text       TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX chat_lines_game ON chat_lines(game_id, id);
