-- Timed games (docs/playing.md): a challenge's time control, and a game's
-- clocks with the next moment the clock sweep must look at it (a low-time
-- warning due, or the deadline it ends on time unless the side to move
-- moves).
ALTER TABLE challenges ADD COLUMN time_control TEXT;
-- A seek's rating range (quick pairing): who may accept it.
ALTER TABLE challenges ADD COLUMN rating_min INTEGER;
ALTER TABLE challenges ADD COLUMN rating_max INTEGER;
ALTER TABLE games ADD COLUMN clock TEXT;
ALTER TABLE games ADD COLUMN clock_due INTEGER;
-- The sweep reads the games whose moment has come.
CREATE INDEX games_clock_due ON games(clock_due) WHERE clock_due IS NOT NULL;

-- Correspondence vacations (docs/playing.md): the days a player used in
-- the current year and, while away, since when. A player away has their
-- correspondence clocks paused.
CREATE TABLE vacations (
    user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    year    INTEGER NOT NULL,
    used_ms INTEGER NOT NULL,
    since   INTEGER
);
