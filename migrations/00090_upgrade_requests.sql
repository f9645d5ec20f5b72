-- +goose Up
-- A student asks for a plan; a SUPER_ADMIN approves (the plan change is
-- audited in plan_changes as any other) or declines. One pending request
-- per student: asking again replaces the plan asked for.
CREATE TABLE upgrade_requests (
    id          bigserial PRIMARY KEY,
    user_id     uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    plan        text NOT NULL,
    status      text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'declined')),
    created_at  timestamptz NOT NULL,
    decided_at  timestamptz,
    decided_by  uuid REFERENCES users(id) ON DELETE SET NULL
);
CREATE UNIQUE INDEX upgrade_requests_one_pending ON upgrade_requests (user_id) WHERE status = 'pending';
CREATE INDEX upgrade_requests_pending ON upgrade_requests (created_at) WHERE status = 'pending';

-- +goose Down
DROP TABLE upgrade_requests;
