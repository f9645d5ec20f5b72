-- +goose Up
-- A statement that changes lesson or help sections (a publish, an
-- unpublish, a delete, `aula import` or `aula seed`, on any instance)
-- tells every aula process on channel aula_content, whose payload says
-- which material: each process's retrieval then forgets the words it
-- checked lately (models.Chunks.ContentChanged), so a word just
-- published is not "not covered" on another instance for the seconds
-- that memory would keep it. PostgreSQL delivers the notification at
-- commit and folds a transaction's identical ones into one.
-- +goose StatementBegin
CREATE FUNCTION notify_content_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('aula_content', TG_ARGV[0]);
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER lesson_chunks_notify AFTER INSERT OR UPDATE OR DELETE ON lesson_chunks
    FOR EACH STATEMENT EXECUTE FUNCTION notify_content_changed('lesson');
CREATE TRIGGER help_chunks_notify AFTER INSERT OR UPDATE OR DELETE ON help_chunks
    FOR EACH STATEMENT EXECUTE FUNCTION notify_content_changed('help');

-- +goose Down
DROP TRIGGER help_chunks_notify ON help_chunks;
DROP TRIGGER lesson_chunks_notify ON lesson_chunks;
DROP FUNCTION notify_content_changed();
