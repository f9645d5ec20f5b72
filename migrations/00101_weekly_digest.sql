-- +goose Up
-- The weekly digest letter (issue 27): when an organization admin's digest
-- was last claimed for sending. A sender claims a due admin with one
-- UPDATE … RETURNING that sets it, so two servers never send the same
-- admin two letters in one week.
ALTER TABLE organization_members ADD COLUMN digest_sent_at timestamptz;
CREATE INDEX organization_members_digest_idx ON organization_members (digest_sent_at) WHERE weekly_digest;

-- +goose Down
DROP INDEX organization_members_digest_idx;
ALTER TABLE organization_members DROP COLUMN digest_sent_at;
