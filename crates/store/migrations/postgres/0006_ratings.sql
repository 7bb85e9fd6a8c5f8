-- Ratings: rated challenges and games, the ratings a rated game's players
-- had before it and the change it made, one Glicko-2 rating per player
-- and variant, and a history row per rated game (the profile's graph).
ALTER TABLE challenges ADD COLUMN rated BIGINT NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN rated BIGINT NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN white_rating BIGINT;
ALTER TABLE games ADD COLUMN white_rating_diff BIGINT;
ALTER TABLE games ADD COLUMN black_rating BIGINT;
ALTER TABLE games ADD COLUMN black_rating_diff BIGINT;

CREATE TABLE perfs (
    user_id    BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    variant    TEXT NOT NULL,
    rating     DOUBLE PRECISION NOT NULL,
    rd         DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games      BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, variant)
);

-- `n`: the player's count of rated games in the variant after this one.
CREATE TABLE rating_history (
    user_id    BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    variant    TEXT NOT NULL,
    n          BIGINT NOT NULL,
    game_id    TEXT NOT NULL REFERENCES games(id),
    rating     BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, variant, n)
);
