-- +goose Up
-- Editing the last question keeps the earlier question and its answer as
-- a version: each version remembers the question it answered, and putting
-- one back on display puts its question back too. NULL (versions kept
-- before this) means the question as it stands.
ALTER TABLE message_versions ADD COLUMN question text;

-- +goose Down
ALTER TABLE message_versions DROP COLUMN question;
