-- +goose Up
-- The images each lesson was given in the editor, with the alt text the
-- author wrote. An image's bytes are stored once, by their SHA-256
-- (content_images); a lesson lists each image it was given once, with its
-- newest description, so an author can reuse it.
CREATE TABLE lesson_images (
    lesson_id   text NOT NULL REFERENCES lessons (id) ON DELETE CASCADE,
    image_id    text NOT NULL REFERENCES content_images (id) ON DELETE CASCADE,
    alt         text NOT NULL CHECK (char_length(alt) BETWEEN 1 AND 250),
    uploaded_by uuid REFERENCES users (id) ON DELETE SET NULL,
    added_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (lesson_id, image_id)
);
CREATE INDEX lesson_images_newest_idx ON lesson_images (lesson_id, added_at DESC);

-- +goose Down
DROP TABLE lesson_images;
