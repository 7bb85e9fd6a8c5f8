-- Each account's site settings (board colours, dark theme, sound...), as
-- one JSON object; an account without a row has the defaults.
CREATE TABLE user_preferences (
    user_id    BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    prefs      TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);
