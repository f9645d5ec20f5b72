-- +goose Up
-- True while a Continue writes an answer further: its text was stopped,
-- kept and counted before, so an interrupted continuation (its process
-- died) leaves the answer stopped with the text stored, not failed and
-- emptied as a first answer is. Reset whenever the answer ends or is
-- written again from nothing.
ALTER TABLE messages ADD COLUMN continued boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE messages DROP COLUMN continued;
