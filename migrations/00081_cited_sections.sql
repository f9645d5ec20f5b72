-- +goose Up
-- A 👎 counts against the sections an answer cites (its § links), not
-- every section retrieved for it; an answer citing none is charged to its
-- lesson as a whole (lesson_rating_totals, unchanged). Receipts now mark
-- each citation "cited" true or false; one without the mark (written
-- before) counts as cited until the step below marks it.

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rating_totals_apply(m messages, sign int) RETURNS void LANGUAGE plpgsql AS $$
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
        WHERE cit->>'kind' = 'lesson' AND cit->>'lessonId' IS NOT NULL AND coalesce(cit->>'cited', 'true') = 'true'
        ON CONFLICT (lesson_id, anchor, heading) DO UPDATE SET down = t.down + n_down,
            unclear = t.unclear + n_unclear, wrong = t.wrong + n_wrong, other = t.other + n_other;
    END IF;
END
$$;
-- +goose StatementEnd

-- Mark the citations of the answers written before: cited when the answer
-- links the section's anchor. The totals trigger stays out of it (the
-- totals are rebuilt below in one pass).
ALTER TABLE messages DISABLE TRIGGER messages_rating_totals_update;
UPDATE messages m SET metadata = jsonb_set(m.metadata, '{citations}', (
    SELECT coalesce(jsonb_agg(cit || jsonb_build_object('cited',
        strpos(m.content, '#' || coalesce(cit->>'anchor', '') || ')') > 0 AND coalesce(cit->>'anchor', '') <> '')
        ORDER BY ord), '[]'::jsonb)
    FROM jsonb_array_elements(m.metadata->'citations') WITH ORDINALITY AS c(cit, ord)))
WHERE m.role = 'assistant' AND jsonb_typeof(m.metadata->'citations') = 'array';
ALTER TABLE messages ENABLE TRIGGER messages_rating_totals_update;

DELETE FROM section_rating_totals;
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
      WHERE m.rating = 'down' AND cit->>'kind' = 'lesson' AND cit->>'lessonId' IS NOT NULL
        AND coalesce(cit->>'cited', 'true') = 'true') AS cited
GROUP BY 1, 2, 3;

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rating_totals_apply(m messages, sign int) RETURNS void LANGUAGE plpgsql AS $$
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
