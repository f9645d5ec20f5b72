-- +goose Up
-- Earlier turns another program brought with a conversation's first
-- question (the API's conversationHistory, MCP's history): kept with the
-- conversation so every later question remembers them, but not messages,
-- since the student never asked them and they count in no quota.
CREATE TABLE context_turns (
    conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    position        int  NOT NULL,
    role            text NOT NULL CHECK (role IN ('user', 'assistant')),
    content         text NOT NULL,
    PRIMARY KEY (conversation_id, position)
);

-- +goose Down
DROP TABLE context_turns;
