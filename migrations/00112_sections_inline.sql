-- +goose Up
-- A section's row (its text and both full-text vectors, 2.7 KB on average
-- on the demo lessons) is over PostgreSQL's 2 KB toast threshold, so its
-- vectors were moved out of line: ranking read each one from the toast
-- table, about 5 µs a section, 16 of a 22 ms search when a common word
-- matches 3,000 of the 10,000-lesson set's sections. Rows up to 8 KB now
-- stay in the table itself; the update moves the existing ones (its
-- dead rows are vacuumed as usual).
ALTER TABLE lesson_chunks SET (toast_tuple_target = 8160);
ALTER TABLE help_chunks SET (toast_tuple_target = 8160);
UPDATE lesson_chunks SET hash = hash;
UPDATE help_chunks SET hash = hash;

-- +goose Down
ALTER TABLE lesson_chunks RESET (toast_tuple_target);
ALTER TABLE help_chunks RESET (toast_tuple_target);
