-- +goose Up
-- Settings of the whole site a SUPER_ADMIN edits in Admin → Site: one row.
-- contact_email is where the forgot-password page sends people when aula
-- sends no email ('' none set).
CREATE TABLE site_settings (
    id            boolean PRIMARY KEY DEFAULT true CHECK (id),
    contact_email text NOT NULL DEFAULT '' CHECK (char_length(contact_email) <= 254),
    updated_by    uuid REFERENCES users(id) ON DELETE SET NULL,
    updated_at    timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE site_settings;
