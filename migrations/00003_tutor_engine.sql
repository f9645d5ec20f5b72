-- +goose Up
-- quota_period is the plan_usage period this answer's question was counted
-- in; NULL means not counted (refunded). Refunds clear it in the same
-- statement that decrements plan_usage, so a question is never refunded
-- twice, even when a failure, a cancel and a restart race.
ALTER TABLE messages ADD COLUMN quota_period date;


-- +goose Down
ALTER TABLE messages DROP COLUMN quota_period;
