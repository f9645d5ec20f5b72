-- +goose Up
-- Several aula processes share one database. The process generating an
-- answer holds a lease on its row: lease_owner is the instance id, and
-- lease_until is pushed forward by that process's heartbeat. A streaming
-- answer whose lease has run out (or that never had one, as rows written
-- before this migration) belongs to a process that is gone: any process's
-- sweep marks it failed ("interrupted") and refunds its question.
-- While streaming, content holds the text generated so far (batched), so a
-- stream reconnecting to another process can replay it from the row.
ALTER TABLE messages ADD COLUMN lease_owner text, ADD COLUMN lease_until timestamptz;

-- The sweep's scan: only streaming rows, by expiry.
DROP INDEX IF EXISTS messages_streaming_idx;
CREATE INDEX messages_streaming_lease_idx ON messages (lease_until) WHERE status = 'streaming';

-- +goose Down
DROP INDEX IF EXISTS messages_streaming_lease_idx;
CREATE INDEX messages_streaming_idx ON messages (id) WHERE status = 'streaming';
ALTER TABLE messages DROP COLUMN lease_owner, DROP COLUMN lease_until;
