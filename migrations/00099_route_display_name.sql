-- +goose Up
-- What students see of the tutor's model (the panel's badge, an answer's
-- receipt): the name an admin gives a route; '' shows the model's own name.
ALTER TABLE ai_routes ADD COLUMN display_name text NOT NULL DEFAULT '' CHECK (char_length(display_name) <= 60);

-- +goose Down
ALTER TABLE ai_routes DROP COLUMN display_name;
