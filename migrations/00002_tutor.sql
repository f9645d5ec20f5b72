-- +goose Up
CREATE TABLE conversations (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id          uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    title            text NOT NULL DEFAULT '',
    mode             text NOT NULL DEFAULT 'tutor' CHECK (mode IN ('lesson', 'tutor', 'help')),
    style            text NOT NULL DEFAULT 'explain' CHECK (style IN ('explain', 'guide')),
    lesson_id        text REFERENCES lessons (id) ON DELETE SET NULL,
    module_id        bigint REFERENCES modules (id) ON DELETE SET NULL,
    -- next_seq hands out message sequence numbers; updating it also locks
    -- the row, so concurrent asks in one thread get consecutive seqs.
    next_seq         int NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL DEFAULT now(),
    last_activity_at timestamptz NOT NULL DEFAULT now(),
    deleted_at       timestamptz
);
-- The thread list: a user's non-empty, live threads by recent activity (keyset).
CREATE INDEX conversations_list_idx ON conversations (user_id, last_activity_at DESC, id DESC)
    WHERE deleted_at IS NULL AND next_seq > 0;

ALTER TABLE users ADD CONSTRAINT users_active_conversation_fk
    FOREIGN KEY (active_conversation_id) REFERENCES conversations (id) ON DELETE SET NULL;

CREATE TABLE messages (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    seq             int NOT NULL,
    role            text NOT NULL CHECK (role IN ('user', 'assistant')),
    content         text NOT NULL DEFAULT '',
    status          text NOT NULL DEFAULT 'complete'
                        CHECK (status IN ('complete', 'streaming', 'failed', 'cancelled')),
    rating          text CHECK (rating IN ('up', 'down')),
    rating_reason   text CHECK (rating_reason IN ('lesson_unclear', 'answer_wrong', 'not_asked', 'other')),
    rating_comment  text NOT NULL DEFAULT '',
    rated_at        timestamptz,
    provider        text NOT NULL DEFAULT '',
    model           text NOT NULL DEFAULT '',
    latency_ms      int,
    ttft_ms         int,
    tokens_in       int,
    tokens_out      int,
    error_code      text NOT NULL DEFAULT '',
    metadata        jsonb NOT NULL DEFAULT '{}',
    created_at      timestamptz NOT NULL DEFAULT now(),
    completed_at    timestamptz,
    UNIQUE (conversation_id, seq)
);
CREATE INDEX messages_user_created_idx ON messages (user_id, created_at);
CREATE INDEX messages_streaming_idx ON messages (id) WHERE status = 'streaming';

CREATE TABLE attachments (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    message_id     uuid NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    filename       text NOT NULL,
    mime           text NOT NULL,
    size           int NOT NULL,
    sha256         text NOT NULL,
    extracted_text text NOT NULL DEFAULT '',
    data           bytea NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX attachments_message_idx ON attachments (message_id);

CREATE TABLE ai_routes (
    use_case    text PRIMARY KEY CHECK (use_case IN ('tutor_chat', 'title', 'condense')),
    provider    text NOT NULL CHECK (provider IN ('offline', 'openai', 'anthropic', 'googleai', 'ollama')),
    model       text NOT NULL DEFAULT '',
    temperature real NOT NULL DEFAULT 0.3,
    max_tokens  int NOT NULL DEFAULT 1024,
    updated_by  uuid REFERENCES users (id) ON DELETE SET NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_tokens (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         text NOT NULL,
    token_hash   bytea NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX api_tokens_user_idx ON api_tokens (user_id);

-- +goose Down
DROP TABLE api_tokens, ai_routes, attachments, messages;
ALTER TABLE users DROP CONSTRAINT users_active_conversation_fk;
DROP TABLE conversations;
