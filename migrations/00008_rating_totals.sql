-- +goose Up
-- Running totals of ratings, kept by a trigger on messages, so the admin
-- ratings page reads a few hundred rows instead of every rated answer ever.
-- lesson_id '' holds the answers given outside a lesson.
CREATE TABLE lesson_rating_totals (
    lesson_id text PRIMARY KEY,
    up        int NOT NULL DEFAULT 0,
    down      int NOT NULL DEFAULT 0,
    unclear   int NOT NULL DEFAULT 0,
    wrong     int NOT NULL DEFAULT 0,
    other     int NOT NULL DEFAULT 0
);

-- 👎 per lesson section cited by the answers (each answer counts once per section).
CREATE TABLE section_rating_totals (
    lesson_id text NOT NULL,
    anchor    text NOT NULL,
    heading   text NOT NULL,
    down      int NOT NULL DEFAULT 0,
    unclear   int NOT NULL DEFAULT 0,
    wrong     int NOT NULL DEFAULT 0,
    other     int NOT NULL DEFAULT 0,
    PRIMARY KEY (lesson_id, anchor, heading)
);
CREATE INDEX section_rating_totals_down_idx ON section_rating_totals (down DESC);

-- The newest 👎 comments of each reason, read straight from the index.
CREATE INDEX messages_down_comments_idx ON messages (rating_reason, rated_at DESC)
    WHERE rating = 'down' AND rating_comment <> '';

-- +goose StatementBegin
-- rating_totals_apply adds (sign 1) or removes (sign -1) one message's rating.
CREATE FUNCTION rating_totals_apply(m messages, sign int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    lid text;
    found_conv boolean;
    n_up int := 0; n_down int := 0; n_unclear int := 0; n_wrong int := 0; n_other int := 0;
BEGIN
    IF m.rating IS NULL THEN
        RETURN;
    END IF;
    IF m.rating = 'up' THEN
        n_up := sign;
    ELSE
        n_down := sign;
        IF m.rating_reason = 'lesson_unclear' THEN n_unclear := sign;
        ELSIF m.rating_reason = 'answer_wrong' THEN n_wrong := sign;
        ELSE n_other := sign;
        END IF;
    END IF;
    SELECT coalesce(c.lesson_id, ''), true INTO lid, found_conv FROM conversations c WHERE c.id = m.conversation_id;
    -- A message deleted along with its conversation (a cascade) finds none:
    -- its lesson is unknown by then, so the lesson totals are left alone.
    IF found_conv THEN
        INSERT INTO lesson_rating_totals AS t (lesson_id, up, down, unclear, wrong, other)
        VALUES (lid, n_up, n_down, n_unclear, n_wrong, n_other)
        ON CONFLICT (lesson_id) DO UPDATE SET up = t.up + n_up, down = t.down + n_down,
            unclear = t.unclear + n_unclear, wrong = t.wrong + n_wrong, other = t.other + n_other;
    END IF;
    IF m.rating = 'down' AND jsonb_typeof(m.metadata->'citations') = 'array' THEN
        INSERT INTO section_rating_totals AS t (lesson_id, anchor, heading, down, unclear, wrong, other)
        SELECT DISTINCT cit->>'lessonId', coalesce(cit->>'anchor', ''), coalesce(cit->>'heading', ''),
            n_down, n_unclear, n_wrong, n_other
        FROM jsonb_array_elements(m.metadata->'citations') AS cit
        WHERE cit->>'kind' = 'lesson' AND cit->>'lessonId' IS NOT NULL
        ON CONFLICT (lesson_id, anchor, heading) DO UPDATE SET down = t.down + n_down,
            unclear = t.unclear + n_unclear, wrong = t.wrong + n_wrong, other = t.other + n_other;
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION rating_totals_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM rating_totals_apply(OLD, -1);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM rating_totals_apply(NEW, 1);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER messages_rating_totals_insert AFTER INSERT ON messages
    FOR EACH ROW WHEN (NEW.rating IS NOT NULL) EXECUTE FUNCTION rating_totals_trigger();
CREATE TRIGGER messages_rating_totals_update AFTER UPDATE OF rating, rating_reason, metadata ON messages
    FOR EACH ROW WHEN (OLD.rating IS DISTINCT FROM NEW.rating OR OLD.rating_reason IS DISTINCT FROM NEW.rating_reason
        OR (NEW.rating IS NOT NULL AND OLD.metadata IS DISTINCT FROM NEW.metadata))
    EXECUTE FUNCTION rating_totals_trigger();
CREATE TRIGGER messages_rating_totals_delete AFTER DELETE ON messages
    FOR EACH ROW WHEN (OLD.rating IS NOT NULL) EXECUTE FUNCTION rating_totals_trigger();

-- The ratings given before the totals existed.
INSERT INTO lesson_rating_totals (lesson_id, up, down, unclear, wrong, other)
SELECT coalesce(c.lesson_id, ''),
    count(*) FILTER (WHERE m.rating = 'up'),
    count(*) FILTER (WHERE m.rating = 'down'),
    count(*) FILTER (WHERE m.rating = 'down' AND m.rating_reason = 'lesson_unclear'),
    count(*) FILTER (WHERE m.rating = 'down' AND m.rating_reason = 'answer_wrong'),
    count(*) FILTER (WHERE m.rating = 'down' AND m.rating_reason IS DISTINCT FROM 'lesson_unclear'
                     AND m.rating_reason IS DISTINCT FROM 'answer_wrong')
FROM messages m JOIN conversations c ON c.id = m.conversation_id
WHERE m.rating IS NOT NULL
GROUP BY 1;

INSERT INTO section_rating_totals (lesson_id, anchor, heading, down, unclear, wrong, other)
SELECT lesson_id, anchor, heading, count(*),
    count(*) FILTER (WHERE reason = 'lesson_unclear'),
    count(*) FILTER (WHERE reason = 'answer_wrong'),
    count(*) FILTER (WHERE reason IS DISTINCT FROM 'lesson_unclear' AND reason IS DISTINCT FROM 'answer_wrong')
FROM (SELECT DISTINCT m.id, m.rating_reason AS reason, cit->>'lessonId' AS lesson_id,
          coalesce(cit->>'anchor', '') AS anchor, coalesce(cit->>'heading', '') AS heading
      FROM messages m
      CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(m.metadata->'citations') = 'array'
          THEN m.metadata->'citations' ELSE '[]'::jsonb END) AS cit
      WHERE m.rating = 'down' AND cit->>'kind' = 'lesson' AND cit->>'lessonId' IS NOT NULL) AS cited
GROUP BY 1, 2, 3;

-- +goose Down
DROP TRIGGER messages_rating_totals_delete ON messages;
DROP TRIGGER messages_rating_totals_update ON messages;
DROP TRIGGER messages_rating_totals_insert ON messages;
DROP FUNCTION rating_totals_trigger();
DROP FUNCTION rating_totals_apply(messages, int);
DROP INDEX messages_down_comments_idx;
DROP TABLE section_rating_totals, lesson_rating_totals;
