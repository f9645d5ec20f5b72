-- +goose Up
-- The editor's figures beside each section find the answers that cited a
-- lesson by containment (citations @> [{"lessonId": …}]), through this
-- index instead of reading every answer ever written.
CREATE INDEX messages_cited_lessons_idx ON messages USING gin ((metadata->'citations') jsonb_path_ops)
    WHERE role = 'assistant';

-- +goose Down
DROP INDEX messages_cited_lessons_idx;
