-- +goose Up
-- A lesson is read when the student reaches its end in the browser or
-- presses "Mark as done"; the first time counts, so a row is never updated.
CREATE TABLE lesson_reads (
    user_id   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    lesson_id text NOT NULL REFERENCES lessons (id) ON DELETE CASCADE,
    read_at   timestamptz NOT NULL,
    PRIMARY KEY (user_id, lesson_id)
);

-- The lesson a student opened last, for "Continue where you left off":
-- one row per student, so a lesson view is one upsert and the row never grows.
CREATE TABLE lesson_visits (
    user_id    uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    lesson_id  text NOT NULL REFERENCES lessons (id) ON DELETE CASCADE,
    visited_at timestamptz NOT NULL
);
CREATE INDEX lesson_visits_lesson_idx ON lesson_visits (lesson_id);
CREATE INDEX lesson_reads_lesson_idx ON lesson_reads (lesson_id);

-- Progress counts a lesson's sections (distinct anchors) and joins a
-- student's section mastery to the sections that still exist.
CREATE INDEX lesson_chunks_lesson_anchor_idx ON lesson_chunks (lesson_id, anchor);

-- +goose Down
DROP INDEX lesson_chunks_lesson_anchor_idx;
DROP TABLE lesson_visits;
DROP TABLE lesson_reads;
