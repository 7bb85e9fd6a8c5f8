-- Tokens that end: an expiry (sessions 30 days after sign-in, API tokens
-- when their owner chose), a description for API tokens, and a third kind,
-- the device cookie of a browser that signed in before (login limits).
ALTER TABLE tokens DROP CONSTRAINT IF EXISTS tokens_kind_check;
ALTER TABLE tokens ADD CONSTRAINT tokens_kind_check CHECK (kind IN ('session', 'api', 'device'));
ALTER TABLE tokens ADD COLUMN expires_at BIGINT;
ALTER TABLE tokens ADD COLUMN description TEXT;
UPDATE tokens SET expires_at = created_at + 2592000000 WHERE kind = 'session';
CREATE INDEX tokens_expiry ON tokens(expires_at) WHERE expires_at IS NOT NULL;
