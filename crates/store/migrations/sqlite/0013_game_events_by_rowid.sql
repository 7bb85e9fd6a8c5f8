-- Game events in a table with row ids, found by a unique index on
-- (game_id, version). As a WITHOUT ROWID table, each event was a row of
-- the key's b-tree, whose rows keep at most about 1,000 bytes on their
-- page: a state of a game past a few dozen plies (its moves and their
-- names) spilled into an overflow page of its own, and every insert into
-- the middle of the tree split pages. Here the rows are appended in the
-- order they are written (a batch's events share pages), and only the
-- index's small entries go into the middle.
CREATE TABLE game_events_by_rowid (
    game_id TEXT NOT NULL REFERENCES games(id),
    version INTEGER NOT NULL,
    payload TEXT NOT NULL
);
INSERT INTO game_events_by_rowid (game_id, version, payload)
    SELECT game_id, version, payload FROM game_events ORDER BY game_id, version;
DROP TABLE game_events;
ALTER TABLE game_events_by_rowid RENAME TO game_events;
CREATE UNIQUE INDEX game_events_key ON game_events(game_id, version);
