-- +goose Up
-- The embeddings route (off until an admin sets it).
ALTER TABLE ai_routes DROP CONSTRAINT ai_routes_use_case_check;
ALTER TABLE ai_routes ADD CONSTRAINT ai_routes_use_case_check
    CHECK (use_case IN ('tutor_chat', 'title', 'condense', 'quiz', 'embeddings'));

-- Section embeddings for retrieval's vector ranking, stored with pgvector
-- when the server has it. Without the extension (or without the right to
-- create it) nothing is created, the migration still succeeds and
-- retrieval ranks by words alone. aula calls enable_chunk_embeddings() again
-- at every start, so installing pgvector later and restarting turns
-- vectors on without another migration.
--
-- A vector is keyed by what was embedded: the section's heading and the
-- hash of its text (lesson_chunks.hash, help_chunks.hash), per model. A
-- republished lesson's unchanged sections keep their vectors; only a
-- changed text (or heading) is embedded again.
-- +goose StatementBegin
CREATE FUNCTION enable_chunk_embeddings() RETURNS boolean LANGUAGE plpgsql AS $fn$
BEGIN
    IF to_regclass('chunk_embeddings') IS NOT NULL THEN
        RETURN true;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
        RETURN false;
    END IF;
    -- Two processes starting at once would race on CREATE EXTENSION.
    PERFORM pg_advisory_xact_lock(7215114107);
    BEGIN
        EXECUTE 'CREATE EXTENSION IF NOT EXISTS vector';
    EXCEPTION WHEN insufficient_privilege THEN
        RAISE NOTICE 'pgvector is installed but this role may not create the extension: retrieval stays lexical';
        RETURN false;
    END;
    EXECUTE $t$CREATE TABLE IF NOT EXISTS chunk_embeddings (
        model       text NOT NULL,
        text_hash   text NOT NULL,
        heading     text NOT NULL,
        embedding   vector NOT NULL,
        embedded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (model, text_hash, heading)
    )$t$;
    RETURN true;
END
$fn$;
-- +goose StatementEnd
SELECT enable_chunk_embeddings();

-- +goose Down
DROP TABLE IF EXISTS chunk_embeddings;
DROP FUNCTION enable_chunk_embeddings();
DELETE FROM ai_routes WHERE use_case = 'embeddings';
ALTER TABLE ai_routes DROP CONSTRAINT ai_routes_use_case_check;
ALTER TABLE ai_routes ADD CONSTRAINT ai_routes_use_case_check
    CHECK (use_case IN ('tutor_chat', 'title', 'condense', 'quiz'));
