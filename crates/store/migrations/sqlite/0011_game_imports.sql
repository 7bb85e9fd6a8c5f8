-- Games imported from PGN (POST /api/import): who imported them, and the
-- players' names and the other tags as the PGN gave them (text, not accounts).
-- The game itself is a row of `games` with no player ids and no computer.
CREATE TABLE game_imports (
    game_id     TEXT PRIMARY KEY REFERENCES games(id),
    importer_id INTEGER NOT NULL REFERENCES users(id),
    white_name  TEXT NOT NULL,
    black_name  TEXT NOT NULL,
    tags        TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX game_imports_importer ON game_imports(importer_id, created_at);
