-- Pending challenges expire (docs/security.md): the hourly sweep finds
-- them by status and age.
CREATE INDEX challenges_pending ON challenges(status, created_at);
