-- +goose Up
-- The help articles' words and in how many sections each appears, as
-- lesson_terms holds the lessons' (migration 00106), with a trigram index
-- beside it: a help question's unknown or misspelt word was looked up by
-- reading every help section's vectors (3–5 ms a question, the slowest
-- questions of the retrieval eval); now it is one index range, or one
-- trigram index read. Both tables are kept by the same two trigger
-- functions, told their table as the trigger's argument.
CREATE TABLE help_terms (
    lexeme   text COLLATE "C" PRIMARY KEY,
    sections int NOT NULL
);

-- +goose StatementBegin
CREATE FUNCTION section_terms_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format($q$
        INSERT INTO %1$I (lexeme, sections)
        SELECT w, count(*) FROM (
            SELECT DISTINCT n.id, w FROM new_rows n,
                unnest(array_cat(tsvector_to_array(n.tsv_en), tsvector_to_array(n.tsv_es)) || '{""}') AS w) x
        GROUP BY w ORDER BY w
        ON CONFLICT (lexeme) DO UPDATE SET sections = %1$I.sections + excluded.sections$q$, TG_ARGV[0]);
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- The rows are locked sorted (see migration 00109).
-- +goose StatementBegin
CREATE FUNCTION section_terms_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format($q$
        WITH x AS (
            SELECT w, count(*) AS n FROM (
                SELECT DISTINCT o.id, w FROM old_rows o,
                    unnest(array_cat(tsvector_to_array(o.tsv_en), tsvector_to_array(o.tsv_es)) || '{""}') AS w) y
            GROUP BY w),
        locked AS MATERIALIZED (
            SELECT t.lexeme, x.n FROM %1$I t JOIN x ON t.lexeme = x.w ORDER BY t.lexeme FOR UPDATE OF t)
        UPDATE %1$I t SET sections = t.sections - locked.n FROM locked WHERE t.lexeme = locked.lexeme$q$, TG_ARGV[0]);
    RETURN NULL;
END $$;
-- +goose StatementEnd

DROP TRIGGER lesson_terms_insert ON lesson_chunks;
DROP TRIGGER lesson_terms_delete ON lesson_chunks;
DROP TRIGGER lesson_terms_update_old ON lesson_chunks;
DROP TRIGGER lesson_terms_update_new ON lesson_chunks;
DROP FUNCTION lesson_terms_add();
DROP FUNCTION lesson_terms_remove();

CREATE TRIGGER lesson_terms_insert AFTER INSERT ON lesson_chunks
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION section_terms_add('lesson_terms');
CREATE TRIGGER lesson_terms_delete AFTER DELETE ON lesson_chunks
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION section_terms_remove('lesson_terms');
CREATE TRIGGER lesson_terms_update_old AFTER UPDATE ON lesson_chunks
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION section_terms_remove('lesson_terms');
CREATE TRIGGER lesson_terms_update_new AFTER UPDATE ON lesson_chunks
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION section_terms_add('lesson_terms');

CREATE TRIGGER help_terms_insert AFTER INSERT ON help_chunks
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION section_terms_add('help_terms');
CREATE TRIGGER help_terms_delete AFTER DELETE ON help_chunks
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION section_terms_remove('help_terms');
CREATE TRIGGER help_terms_update_old AFTER UPDATE ON help_chunks
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION section_terms_remove('help_terms');
CREATE TRIGGER help_terms_update_new AFTER UPDATE ON help_chunks
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION section_terms_add('help_terms');

INSERT INTO help_terms (lexeme, sections)
SELECT w, count(*) FROM (
    SELECT DISTINCT c.id, w FROM help_chunks c,
        unnest(array_cat(tsvector_to_array(c.tsv_en), tsvector_to_array(c.tsv_es)) || '{""}') AS w) x
GROUP BY w;

-- enable_term_trigrams (migration 00108) now indexes both tables.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION enable_term_trigrams() RETURNS boolean LANGUAGE plpgsql AS $fn$
BEGIN
    IF to_regclass('lesson_terms_trgm') IS NOT NULL AND to_regclass('help_terms_trgm') IS NOT NULL THEN
        RETURN true;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
        RETURN false;
    END IF;
    -- Two processes starting at once would race on CREATE EXTENSION.
    PERFORM pg_advisory_xact_lock(7215114108);
    BEGIN
        EXECUTE 'CREATE EXTENSION IF NOT EXISTS pg_trgm';
    EXCEPTION WHEN insufficient_privilege THEN
        RAISE NOTICE 'pg_trgm is installed but this role may not create the extension: misspelt words stay unknown';
        RETURN false;
    END;
    -- fastupdate off: a new word goes into the index at once; with a
    -- pending list (the default) every lookup after an import read the
    -- whole list, 1.1 ms instead of 0.05 on the demo content.
    EXECUTE 'CREATE INDEX IF NOT EXISTS lesson_terms_trgm ON lesson_terms USING gin (lexeme gin_trgm_ops) WITH (fastupdate = off)';
    EXECUTE 'CREATE INDEX IF NOT EXISTS help_terms_trgm ON help_terms USING gin (lexeme gin_trgm_ops) WITH (fastupdate = off)';
    RETURN true;
END
$fn$;
-- +goose StatementEnd
SELECT enable_term_trigrams();

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION enable_term_trigrams() RETURNS boolean LANGUAGE plpgsql AS $fn$
BEGIN
    IF to_regclass('lesson_terms_trgm') IS NOT NULL THEN
        RETURN true;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
        RETURN false;
    END IF;
    PERFORM pg_advisory_xact_lock(7215114108);
    BEGIN
        EXECUTE 'CREATE EXTENSION IF NOT EXISTS pg_trgm';
    EXCEPTION WHEN insufficient_privilege THEN
        RAISE NOTICE 'pg_trgm is installed but this role may not create the extension: misspelt words stay unknown';
        RETURN false;
    END;
    EXECUTE 'CREATE INDEX IF NOT EXISTS lesson_terms_trgm ON lesson_terms USING gin (lexeme gin_trgm_ops) WITH (fastupdate = off)';
    RETURN true;
END
$fn$;
-- +goose StatementEnd
DROP TRIGGER help_terms_insert ON help_chunks;
DROP TRIGGER help_terms_delete ON help_chunks;
DROP TRIGGER help_terms_update_old ON help_chunks;
DROP TRIGGER help_terms_update_new ON help_chunks;
DROP TABLE help_terms;
DROP TRIGGER lesson_terms_insert ON lesson_chunks;
DROP TRIGGER lesson_terms_delete ON lesson_chunks;
DROP TRIGGER lesson_terms_update_old ON lesson_chunks;
DROP TRIGGER lesson_terms_update_new ON lesson_chunks;
-- +goose StatementBegin
CREATE FUNCTION lesson_terms_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO lesson_terms (lexeme, sections)
    SELECT w, count(*) FROM (
        SELECT DISTINCT n.id, w FROM new_rows n,
            unnest(array_cat(tsvector_to_array(n.tsv_en), tsvector_to_array(n.tsv_es)) || '{""}') AS w) x
    GROUP BY w ORDER BY w
    ON CONFLICT (lexeme) DO UPDATE SET sections = lesson_terms.sections + excluded.sections;
    RETURN NULL;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION lesson_terms_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH x AS (
        SELECT w, count(*) AS n FROM (
            SELECT DISTINCT o.id, w FROM old_rows o,
                unnest(array_cat(tsvector_to_array(o.tsv_en), tsvector_to_array(o.tsv_es)) || '{""}') AS w) y
        GROUP BY w),
    locked AS MATERIALIZED (
        SELECT t.lexeme, x.n FROM lesson_terms t JOIN x ON t.lexeme = x.w ORDER BY t.lexeme FOR UPDATE OF t)
    UPDATE lesson_terms t SET sections = t.sections - locked.n FROM locked WHERE t.lexeme = locked.lexeme;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER lesson_terms_insert AFTER INSERT ON lesson_chunks
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lesson_terms_add();
CREATE TRIGGER lesson_terms_delete AFTER DELETE ON lesson_chunks
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION lesson_terms_remove();
CREATE TRIGGER lesson_terms_update_old AFTER UPDATE ON lesson_chunks
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION lesson_terms_remove();
CREATE TRIGGER lesson_terms_update_new AFTER UPDATE ON lesson_chunks
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lesson_terms_add();
DROP FUNCTION section_terms_add();
DROP FUNCTION section_terms_remove();
