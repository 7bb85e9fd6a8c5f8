-- Pending challenges expire (docs/security.md): the hourly sweep finds
-- them by status and age.
CREATE INDEX challenges_pending ON challenges(status, created_at);

-- Players a player has blocked: they may not challenge them or write in
-- the chat of their games.
CREATE TABLE blocks (
    user_id    BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    blocked_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, blocked_id)
);
CREATE INDEX blocks_blocked ON blocks(blocked_id);

-- Players a player follows (their friends list).
CREATE TABLE follows (
    user_id     BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    followed_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (user_id, followed_id)
);
CREATE INDEX follows_followed ON follows(followed_id);
