-- +goose Up
-- Regenerating a finished answer keeps the earlier version: the messages
-- row holds the version on display (the only one later prompts see),
-- message_versions the others, by number.
ALTER TABLE messages ADD COLUMN version int NOT NULL DEFAULT 1;
CREATE TABLE message_versions (
    message_id uuid NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    version    int  NOT NULL,
    content    text NOT NULL,
    metadata   jsonb NOT NULL DEFAULT '{}',
    provider   text NOT NULL DEFAULT '',
    model      text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (message_id, version)
);

-- +goose Down
DROP TABLE message_versions;
ALTER TABLE messages DROP COLUMN version;
