-- +goose Up
-- lesson_terms' rows are locked in one order (by lexeme) by every writer.
-- The insert trigger already did (its INSERT … SELECT … ORDER BY), but the
-- delete trigger's UPDATE … FROM joined in hash order: two authors
-- publishing at once (each deleting a lesson's sections, then inserting
-- the new ones) locked shared words in opposite orders and one of them
-- failed with "deadlock detected" (TestLessonTermsPublishedAtOnce). The
-- rows are now locked sorted first, so the row of the empty lexeme, which
-- every statement touches and which sorts first, lets one writer through
-- at a time.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION lesson_terms_remove() RETURNS trigger LANGUAGE plpgsql AS $$
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

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION lesson_terms_remove() RETURNS trigger LANGUAGE plpgsql AS $$
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
