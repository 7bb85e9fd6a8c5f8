-- Timed games (docs/playing.md): a challenge's time control, and a game's
-- clocks with the moment it ends on time unless the side to move moves.
ALTER TABLE challenges ADD COLUMN time_control TEXT;
-- A seek's rating range (quick pairing): who may accept it.
ALTER TABLE challenges ADD COLUMN rating_min INTEGER;
ALTER TABLE challenges ADD COLUMN rating_max INTEGER;
ALTER TABLE games ADD COLUMN clock TEXT;
ALTER TABLE games ADD COLUMN clock_deadline INTEGER;
-- The flag sweep reads the games whose deadline has passed.
CREATE INDEX games_clock_deadline ON games(clock_deadline) WHERE clock_deadline IS NOT NULL;
