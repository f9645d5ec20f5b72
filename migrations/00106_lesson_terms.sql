-- +goose Up
-- The words of the published lessons' sections (the lexemes of both
-- full-text vectors) and in how many sections each appears. Retrieval
-- weighs a question's words by their rarity (a word in every section says
-- little about which one is meant) and, among many lessons, looks for the
-- sections holding its rarest words first instead of ranking every
-- section that shares a common one. The row with the empty lexeme counts
-- the sections themselves. Kept by the triggers below, one statement at a
-- time, whatever writes lesson_chunks (import, publish, delete, cascade).
-- Byte order (COLLATE "C"), so that a question's word matched as a prefix
-- ('config':*) reads a range of the primary key.
CREATE TABLE lesson_terms (
    lexeme   text COLLATE "C" PRIMARY KEY,
    sections int NOT NULL
);

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
    UPDATE lesson_terms t SET sections = t.sections - x.n FROM (
        SELECT w, count(*) AS n FROM (
            SELECT DISTINCT o.id, w FROM old_rows o,
                unnest(array_cat(tsvector_to_array(o.tsv_en), tsvector_to_array(o.tsv_es)) || '{""}') AS w) y
        GROUP BY w) x
    WHERE t.lexeme = x.w;
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

INSERT INTO lesson_terms (lexeme, sections)
SELECT w, count(*) FROM (
    SELECT DISTINCT c.id, w FROM lesson_chunks c,
        unnest(array_cat(tsvector_to_array(c.tsv_en), tsvector_to_array(c.tsv_es)) || '{""}') AS w) x
GROUP BY w;

-- +goose Down
DROP TRIGGER lesson_terms_insert ON lesson_chunks;
DROP TRIGGER lesson_terms_delete ON lesson_chunks;
DROP TRIGGER lesson_terms_update_old ON lesson_chunks;
DROP TRIGGER lesson_terms_update_new ON lesson_chunks;
DROP FUNCTION lesson_terms_add();
DROP FUNCTION lesson_terms_remove();
DROP TABLE lesson_terms;
