-- Ratings: rated challenges and games, the ratings a rated game's players
-- had before it and the change it made, one Glicko-2 rating per player
-- and variant, and a history row per rated game (the profile's graph).
ALTER TABLE challenges ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN white_rating INTEGER;
ALTER TABLE games ADD COLUMN white_rating_diff INTEGER;
ALTER TABLE games ADD COLUMN black_rating INTEGER;
ALTER TABLE games ADD COLUMN black_rating_diff INTEGER;

CREATE TABLE perfs (
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    variant    TEXT NOT NULL,
    rating     REAL NOT NULL,
    rd         REAL NOT NULL,
    volatility REAL NOT NULL,
    games      INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, variant)
) WITHOUT ROWID;

-- `n`: the player's count of rated games in the variant after this one.
CREATE TABLE rating_history (
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    variant    TEXT NOT NULL,
    n          INTEGER NOT NULL,
    game_id    TEXT NOT NULL REFERENCES games(id),
    rating     INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, variant, n)
) WITHOUT ROWID;
