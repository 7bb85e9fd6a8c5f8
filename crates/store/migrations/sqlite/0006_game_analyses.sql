-- The computer's analysis of a game: one evaluation per position, as JSON
-- (review::StoredAnalysis); marks and accuracy are computed when read.
CREATE TABLE game_analyses (
    game_id    TEXT PRIMARY KEY REFERENCES games(id),
    result     TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
