-- +goose Up
-- Trigram similarity for retrieval's confidence check: a question word no
-- section's full-text vector has (a typo, an inflection stemming misses,
-- "detengo" against "detener") still counts as known when a section's
-- text holds a word close to it (word_similarity, the <% operator these
-- indexes serve). pg_trgm is a trusted contrib extension (PostgreSQL 13+):
-- the database's owner may create it; Debian's postgresql package ships it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX lesson_chunks_text_trgm_idx ON lesson_chunks USING gin (text gin_trgm_ops);
CREATE INDEX help_chunks_text_trgm_idx ON help_chunks USING gin (text gin_trgm_ops);

-- +goose Down
DROP INDEX help_chunks_text_trgm_idx;
DROP INDEX lesson_chunks_text_trgm_idx;
