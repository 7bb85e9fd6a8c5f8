-- Limits shared by every node (docs/security.md): the login attempts
-- table becomes the general allowance counter (login attempts per account
-- and address, guest accounts per address, the account-wide spacing of
-- sign-ins, whose wait is `next_allowed`, ms).
ALTER TABLE login_attempts RENAME TO allowances;
ALTER TABLE allowances ADD COLUMN next_allowed INTEGER NOT NULL DEFAULT 0;
-- One holder at a time per key until `until` (ms), renewed by the holder
-- (a live analysis per user or address); `release` asks it to stop.
CREATE TABLE leases (
    key     TEXT PRIMARY KEY,
    holder  TEXT NOT NULL,
    until   INTEGER NOT NULL,
    release INTEGER NOT NULL DEFAULT 0
);
