-- +goose Up
-- PostgreSQL's parser keeps an identifier written with its package or
-- receiver ("sync.WaitGroup", "errors.Is", "ctx.Done()") as one token, so
-- a section about sync.WaitGroup never matched a question about "the
-- WaitGroup", nor the heading "errors.Is and errors.As" one about errors.
-- The sections' vectors now also hold each such identifier's parts (the
-- whole token stays: a question naming errors.Is still finds it). Only
-- parts starting with a letter count: "802.1Q" and "10.0.0.1" stay whole.
-- +goose StatementBegin
CREATE FUNCTION identifier_parts(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN (SELECT coalesce(string_agg(translate(m[1], '.', ' '), ' '), '')
        FROM regexp_matches(t, '([[:alpha:]_][[:alnum:]_]*(?:\.[[:alpha:]_][[:alnum:]_]*)+)', 'g') AS m);
-- +goose StatementEnd

ALTER TABLE lesson_chunks DROP COLUMN tsv_en, DROP COLUMN tsv_es,
    ADD COLUMN tsv_en tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', heading || ' ' || identifier_parts(heading)), 'A')
        || to_tsvector('english', text || ' ' || identifier_parts(text))) STORED,
    ADD COLUMN tsv_es tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('spanish', heading || ' ' || identifier_parts(heading)), 'A')
        || to_tsvector('spanish', text || ' ' || identifier_parts(text))) STORED;
CREATE INDEX lesson_chunks_tsv_en_idx ON lesson_chunks USING gin (tsv_en);
CREATE INDEX lesson_chunks_tsv_es_idx ON lesson_chunks USING gin (tsv_es);

ALTER TABLE help_chunks DROP COLUMN tsv_en, DROP COLUMN tsv_es,
    ADD COLUMN tsv_en tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', heading || ' ' || identifier_parts(heading)), 'A')
        || to_tsvector('english', text || ' ' || identifier_parts(text))) STORED,
    ADD COLUMN tsv_es tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('spanish', heading || ' ' || identifier_parts(heading)), 'A')
        || to_tsvector('spanish', text || ' ' || identifier_parts(text))) STORED;
CREATE INDEX help_chunks_tsv_en_idx ON help_chunks USING gin (tsv_en);
CREATE INDEX help_chunks_tsv_es_idx ON help_chunks USING gin (tsv_es);

-- Rewriting the columns fires no trigger: count the words again.
DELETE FROM lesson_terms;
INSERT INTO lesson_terms (lexeme, sections)
SELECT w, count(*) FROM (
    SELECT DISTINCT c.id, w FROM lesson_chunks c,
        unnest(array_cat(tsvector_to_array(c.tsv_en), tsvector_to_array(c.tsv_es)) || '{""}') AS w) x
GROUP BY w;

-- +goose Down
ALTER TABLE lesson_chunks DROP COLUMN tsv_en, DROP COLUMN tsv_es,
    ADD COLUMN tsv_en tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', heading), 'A') || to_tsvector('english', text)) STORED,
    ADD COLUMN tsv_es tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('spanish', heading), 'A') || to_tsvector('spanish', text)) STORED;
CREATE INDEX lesson_chunks_tsv_en_idx ON lesson_chunks USING gin (tsv_en);
CREATE INDEX lesson_chunks_tsv_es_idx ON lesson_chunks USING gin (tsv_es);
ALTER TABLE help_chunks DROP COLUMN tsv_en, DROP COLUMN tsv_es,
    ADD COLUMN tsv_en tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', heading), 'A') || to_tsvector('english', text)) STORED,
    ADD COLUMN tsv_es tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('spanish', heading), 'A') || to_tsvector('spanish', text)) STORED;
CREATE INDEX help_chunks_tsv_en_idx ON help_chunks USING gin (tsv_en);
CREATE INDEX help_chunks_tsv_es_idx ON help_chunks USING gin (tsv_es);
DELETE FROM lesson_terms;
INSERT INTO lesson_terms (lexeme, sections)
SELECT w, count(*) FROM (
    SELECT DISTINCT c.id, w FROM lesson_chunks c,
        unnest(array_cat(tsvector_to_array(c.tsv_en), tsvector_to_array(c.tsv_es)) || '{""}') AS w) x
GROUP BY w;
DROP FUNCTION identifier_parts(text);
