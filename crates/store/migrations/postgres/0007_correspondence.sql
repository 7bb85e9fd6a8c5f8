-- Correspondence features of a game: an open takeback offer (the side
-- offering), the rematch state ('offer:white', 'offer:black', 'declined' or
-- 'next:<game id>'), and the conditional moves ("forecasts") of the side
-- waiting: lines of Merge-UCI moves, space-separated, lines comma-separated.
ALTER TABLE games ADD COLUMN takeback_offer TEXT;
ALTER TABLE games ADD COLUMN rematch TEXT;
ALTER TABLE games ADD COLUMN forecasts TEXT;
