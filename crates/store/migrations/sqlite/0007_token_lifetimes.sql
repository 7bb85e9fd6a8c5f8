-- Tokens that end: an expiry (sessions 30 days after sign-in, API tokens
-- when their owner chose), a description for API tokens, and a third kind,
-- the device cookie of a browser that signed in before (login limits).
-- SQLite cannot change a CHECK constraint in place: the table is rebuilt.
CREATE TABLE tokens_new (
    token_hash  TEXT PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('session', 'api', 'device')),
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER,
    description TEXT
);
INSERT INTO tokens_new (token_hash, user_id, kind, created_at, expires_at)
    SELECT token_hash, user_id, kind, created_at,
           CASE kind WHEN 'session' THEN created_at + 2592000000 END
    FROM tokens;
DROP TABLE tokens;
ALTER TABLE tokens_new RENAME TO tokens;
CREATE INDEX tokens_user ON tokens(user_id);
CREATE INDEX tokens_expiry ON tokens(expires_at) WHERE expires_at IS NOT NULL;
