-- Bot accounts (lichess's BOT title: they play only through the bot API),
-- and the chat of games (the bot API's chat, shown on the game page).
ALTER TABLE users ADD COLUMN bot BIGINT NOT NULL DEFAULT 0;

CREATE TABLE chat_lines (
    id         BIGSERIAL PRIMARY KEY,
    game_id    TEXT NOT NULL REFERENCES games(id),
    user_id    BIGINT NOT NULL REFERENCES users(id),
    room       TEXT NOT NULL CHECK (room IN ('player', 'spectator')),
    text       TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX chat_lines_game ON chat_lines(game_id, id);
