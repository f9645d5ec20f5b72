-- +goose Up
-- lesson_terms and help_terms held every section's lexemes in both
-- stemmings, so a word counted as known to the material whenever either
-- stemming of it appeared in either stemming of any section: "sumarization"
-- (a typo) stems to "sumar" in English, which the English stemming of the
-- Spanish lessons' verb "sumar" holds, so the check took it for a known
-- word, never looked for the near "summarization", and the question found
-- nothing. The tables now also count, for each word, the English sections
-- whose English stemming holds it (en) and the Spanish sections whose
-- Spanish stemming does (es): the check asks a word's English stem of the
-- English material and its Spanish stem of the Spanish material. A
-- section's language is copied onto it (the triggers that keep the counts
-- see only the section, and on a cascade its lesson is already gone).
ALTER TABLE lesson_chunks ADD COLUMN language text NOT NULL DEFAULT 'en';
ALTER TABLE help_chunks ADD COLUMN language text NOT NULL DEFAULT 'en';
ALTER TABLE lesson_terms ADD COLUMN en int NOT NULL DEFAULT 0, ADD COLUMN es int NOT NULL DEFAULT 0;
ALTER TABLE help_terms ADD COLUMN en int NOT NULL DEFAULT 0, ADD COLUMN es int NOT NULL DEFAULT 0;

-- A section of no lesson keeps its default: the foreign key refuses it.
-- +goose StatementBegin
CREATE FUNCTION lesson_chunk_language() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.language := coalesce((SELECT language FROM lessons WHERE id = NEW.lesson_id), NEW.language);
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION help_chunk_language() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.language := coalesce((SELECT language FROM help_articles WHERE id = NEW.article_id), NEW.language);
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- A lesson or article whose language changes takes its sections along
-- (their update triggers count their words again).
-- +goose StatementBegin
CREATE FUNCTION sections_follow_language() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('UPDATE %I SET language = $1 WHERE %I = $2', TG_ARGV[0], TG_ARGV[1]) USING NEW.language, NEW.id;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER lesson_chunks_language BEFORE INSERT OR UPDATE ON lesson_chunks
    FOR EACH ROW EXECUTE FUNCTION lesson_chunk_language();
CREATE TRIGGER help_chunks_language BEFORE INSERT OR UPDATE ON help_chunks
    FOR EACH ROW EXECUTE FUNCTION help_chunk_language();
CREATE TRIGGER lessons_language AFTER UPDATE OF language ON lessons
    FOR EACH ROW WHEN (OLD.language IS DISTINCT FROM NEW.language)
    EXECUTE FUNCTION sections_follow_language('lesson_chunks', 'lesson_id');
CREATE TRIGGER help_articles_language AFTER UPDATE OF language ON help_articles
    FOR EACH ROW WHEN (OLD.language IS DISTINCT FROM NEW.language)
    EXECUTE FUNCTION sections_follow_language('help_chunks', 'article_id');

-- section_words(rows) is each section's words with whether they are its
-- own language's (its language's stemming holds them): the row of the
-- empty word counts the section itself.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION section_terms_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format($q$
        INSERT INTO %1$I (lexeme, sections, en, es)
        SELECT w, count(*), count(*) FILTER (WHERE own AND lang <> 'es'), count(*) FILTER (WHERE own AND lang = 'es') FROM (
            SELECT n.id, n.language AS lang, x.w, bool_or(x.cfg = CASE WHEN n.language = 'es' THEN 'es' ELSE 'en' END) AS own
            FROM new_rows n CROSS JOIN LATERAL (
                SELECT unnest(tsvector_to_array(n.tsv_en)), 'en' UNION ALL
                SELECT unnest(tsvector_to_array(n.tsv_es)), 'es' UNION ALL SELECT '', '') AS x(w, cfg)
            GROUP BY n.id, n.language, x.w) y
        GROUP BY w ORDER BY w
        ON CONFLICT (lexeme) DO UPDATE SET sections = %1$I.sections + excluded.sections,
            en = %1$I.en + excluded.en, es = %1$I.es + excluded.es$q$, TG_ARGV[0]);
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- The rows are locked sorted (see migration 00109).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION section_terms_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format($q$
        WITH x AS (
            SELECT w, count(*) AS n, count(*) FILTER (WHERE own AND lang <> 'es') AS en, count(*) FILTER (WHERE own AND lang = 'es') AS es FROM (
                SELECT o.id, o.language AS lang, x.w, bool_or(x.cfg = CASE WHEN o.language = 'es' THEN 'es' ELSE 'en' END) AS own
                FROM old_rows o CROSS JOIN LATERAL (
                    SELECT unnest(tsvector_to_array(o.tsv_en)), 'en' UNION ALL
                    SELECT unnest(tsvector_to_array(o.tsv_es)), 'es' UNION ALL SELECT '', '') AS x(w, cfg)
                GROUP BY o.id, o.language, x.w) y
            GROUP BY w),
        locked AS MATERIALIZED (
            SELECT t.lexeme, x.n, x.en, x.es FROM %1$I t JOIN x ON t.lexeme = x.w ORDER BY t.lexeme FOR UPDATE OF t)
        UPDATE %1$I t SET sections = t.sections - locked.n, en = t.en - locked.en, es = t.es - locked.es
        FROM locked WHERE t.lexeme = locked.lexeme$q$, TG_ARGV[0]);
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- Count every section's words again, with their languages: with the
-- tables emptied and only the trigger adding an updated row's words on,
-- updating every section counts it once.
DELETE FROM lesson_terms;
DELETE FROM help_terms;
ALTER TABLE lesson_chunks DISABLE TRIGGER lesson_terms_update_old;
ALTER TABLE help_chunks DISABLE TRIGGER help_terms_update_old;
UPDATE lesson_chunks c SET language = l.language FROM lessons l WHERE l.id = c.lesson_id;
UPDATE help_chunks c SET language = a.language FROM help_articles a WHERE a.id = c.article_id;
ALTER TABLE lesson_chunks ENABLE TRIGGER lesson_terms_update_old;
ALTER TABLE help_chunks ENABLE TRIGGER help_terms_update_old;

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION section_terms_add() RETURNS trigger LANGUAGE plpgsql AS $$
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
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION section_terms_remove() RETURNS trigger LANGUAGE plpgsql AS $$
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
DROP TRIGGER lessons_language ON lessons;
DROP TRIGGER help_articles_language ON help_articles;
DROP TRIGGER lesson_chunks_language ON lesson_chunks;
DROP TRIGGER help_chunks_language ON help_chunks;
DROP FUNCTION sections_follow_language();
DROP FUNCTION lesson_chunk_language();
DROP FUNCTION help_chunk_language();
ALTER TABLE lesson_terms DROP COLUMN en, DROP COLUMN es;
ALTER TABLE help_terms DROP COLUMN en, DROP COLUMN es;
ALTER TABLE lesson_chunks DROP COLUMN language;
ALTER TABLE help_chunks DROP COLUMN language;
