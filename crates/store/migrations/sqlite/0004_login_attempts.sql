-- Failed-login counts per key (account or client address) in a window,
-- shared by every node.
CREATE TABLE login_attempts (
    key          TEXT PRIMARY KEY,
    count        INTEGER NOT NULL,
    window_start INTEGER NOT NULL
);
