-- +goose Up
-- A trigram index on the sections' words (lesson_terms), so a question's
-- word no section holds can be matched to the closest one they do hold
-- ("bufered" to "buffer", "gorrutina" to "gorutin"): a misspelling finds
-- its section instead of making the question look uncovered. pg_trgm
-- ships with PostgreSQL's contrib modules and is a trusted extension
-- (a database owner may create it); without it, or without the right to
-- create it, nothing is created, the migration still succeeds and
-- retrieval matches words as written. aula calls enable_term_trigrams()
-- again when it first checks a question's words, so installing pg_trgm
-- later and restarting turns it on without another migration.
-- +goose StatementBegin
CREATE FUNCTION enable_term_trigrams() RETURNS boolean LANGUAGE plpgsql AS $fn$
BEGIN
    IF to_regclass('lesson_terms_trgm') IS NOT NULL THEN
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
    RETURN true;
END
$fn$;
-- +goose StatementEnd
SELECT enable_term_trigrams();

-- +goose Down
DROP INDEX IF EXISTS lesson_terms_trgm;
DROP FUNCTION enable_term_trigrams();
