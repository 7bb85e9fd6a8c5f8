-- The lobby's open-challenge list (kind = 'open', status = 'created',
-- newest first) and the start-up scan for games the computer must resume
-- read these without walking the whole table.
CREATE INDEX challenges_open ON challenges(kind, status, created_at);
CREATE INDEX games_ai_ongoing ON games(status, ai_level) WHERE ai_level IS NOT NULL;
