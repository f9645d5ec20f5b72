-- +goose Up
-- Sign-ups on their way into an organization (next is a live join link or
-- invitation) count here, not in signup_attempts: a class behind one school
-- address signs up together, where 3 sign-ups per address in 10 minutes
-- would stop the fourth student.
CREATE TABLE class_signup_attempts (
    address      text NOT NULL,
    attempted_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX class_signup_attempts_address_idx ON class_signup_attempts (address, attempted_at);

-- +goose Down
DROP TABLE class_signup_attempts;
