package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// A class asking at once records hundreds of questions in the same few
// milliseconds. BeginTurn's asks that arrive together (see batcher) are
// recorded by one statement, recordTurnsSQL, which keeps every rule of
// the single statement for each of them:
//
//   - the quota is exact when one user asks several times in a batch: the
//     batch locks each user's plan_usage row first (SELECT FOR UPDATE
//     returns the latest committed count, whatever the statement's
//     snapshot saw), ranks the user's asks in batch order and admits the
//     first "remaining" of them. Ranking in SQL rather than running rounds
//     of distinct users keeps one account's hundred asks one statement,
//     not a hundred after each other. Holding the row lock until commit is the race
//     guard against other processes, as the single statement's
//     conditional upsert is;
//   - asks in one conversation are ranked too: the conversation advances
//     by two seqs per admitted ask and each gets its own consecutive pair;
//   - an ask opening its conversation (TurnInput.Opens) is found when
//     its lesson exists, ranks among its user's asks as any other, and
//     its conversation is inserted only when it is admitted;
//   - rows are locked in one order (conversations by id, then plan_usage
//     rows by user, as the single statement does for its one of each),
//     so batches do not deadlock on each other.
//
// A user without a plan_usage row of the period gets one inserted,
// counting min(asks, limit). When another statement inserted it since
// this one's snapshot, the upsert adds to it only if all of those still
// fit (the count is then unknown, so a partial admission cannot be
// ranked); else that user's asks are not settled and run alone
// afterwards, where the single statement's upsert ranks them. If the
// statement fails, every ask runs alone, so neither one caller's bad
// input nor a rare lock cycle PostgreSQL breaks becomes the others' error.

// turnLine is one ask in the batch statement's input (one JSON array).
type turnLine struct {
	I       int             `json:"i"`
	CID     string          `json:"cid"`
	UID     string          `json:"uid"`
	Period  string          `json:"period"`
	At      time.Time       `json:"at"`
	Title   string          `json:"title"`
	Content string          `json:"content"`
	Meta    json.RawMessage `json:"meta"`
	AID     string          `json:"aid"`
	QID     string          `json:"qid"` // the question's id, chosen here (see recordTurnsSQL)
	Owner   *string         `json:"owner"`
	TTL     int64           `json:"ttl"`
	// Opens and what follows describe the conversation the ask opens.
	Opens  bool    `json:"opens"`
	Mode   string  `json:"mode,omitempty"`
	Style  string  `json:"style,omitempty"`
	Lesson *string `json:"lesson,omitempty"`
	Module *int64  `json:"module,omitempty"`
}

// recordTurnsSQL records many asks in one statement (see above): c0
// locks the conversations, ok keeps the asks whose conversation is
// theirs (or, for an ask opening one, whose lesson exists), that are
// no help question their organization refuses, and ranks each user's, pu locks their plan_usage rows, a says how many of each
// user's asks are admitted, g ranks the admitted asks in their
// conversation, c advances the existing conversations and nc inserts
// the admitted asks' new ones (next_seq 2: their question and answer
// take 0 and 1), and the rest writes as recordTurnSQL does. The answer
// has one row per ask. The question's id is chosen by the caller, as the
// answer's is: finding each inserted question again by its thread and
// seq was a nested loop over the batch (its rows are estimated as one),
// about 15 % of the statement's time for 100 asks opening threads
// (EXPLAIN ANALYZE, alternating, 19.6–28.5 against 15.8–27.1 ms).
var recordTurnsSQL = `WITH req AS MATERIALIZED (
		SELECT * FROM json_to_recordset(?::json) AS r(i int, cid uuid, uid uuid, period date, at timestamptz,
			title text, content text, meta jsonb, aid uuid, qid uuid, owner text, ttl bigint,
			opens bool, mode text, style text, lesson text, module bigint)
	), c0 AS MATERIALIZED (
		SELECT c.id, c.user_id, c.mode FROM conversations c
		WHERE c.deleted_at IS NULL AND c.mode <> 'check'
		  AND EXISTS (SELECT 1 FROM req WHERE req.cid = c.id AND req.uid = c.user_id AND NOT req.opens)
		ORDER BY c.id FOR UPDATE OF c
	), ok AS MATERIALIZED (
		SELECT req.*, u.plan, u.locale, ` + limitSQL("u") + ` AS lim, coalesce(req.module, l.module_id) AS lmod,
		       row_number() OVER (PARTITION BY req.uid, req.period ORDER BY req.i) AS ur
		FROM req JOIN users u ON u.id = req.uid
		LEFT JOIN c0 ON NOT req.opens AND c0.id = req.cid AND c0.user_id = req.uid
		LEFT JOIN lessons l ON req.opens AND l.id = req.lesson
		WHERE CASE WHEN req.opens THEN req.lesson IS NULL OR l.id IS NOT NULL ELSE c0.id IS NOT NULL END
		  AND NOT ` + helpOffSQL("u", "CASE WHEN req.opens THEN req.mode ELSE c0.mode END") + `
	), pu AS MATERIALIZED (
		SELECT p.user_id, p.period, p.questions FROM plan_usage p
		WHERE EXISTS (SELECT 1 FROM ok WHERE ok.uid = p.user_id AND ok.period = p.period)
		ORDER BY p.user_id, p.period FOR UPDATE OF p
	), a AS MATERIALIZED (
		SELECT ok.uid, ok.period, pu.user_id IS NOT NULL AS existed, coalesce(pu.questions, 0) AS old, max(ok.lim) AS lim,
		       CASE WHEN max(ok.lim) = 0 THEN count(*)
		            ELSE least(count(*), greatest(max(ok.lim) - coalesce(pu.questions, 0), 0)) END AS n
		FROM ok LEFT JOIN pu ON pu.user_id = ok.uid AND pu.period = ok.period
		GROUP BY ok.uid, ok.period, pu.user_id, pu.questions
	), upd AS (
		UPDATE plan_usage p SET questions = p.questions + a.n FROM a
		WHERE a.existed AND a.n > 0 AND p.user_id = a.uid AND p.period = a.period
		RETURNING p.user_id
	), ins AS (
		INSERT INTO plan_usage AS p (user_id, period, questions)
		SELECT uid, period, n FROM a WHERE NOT existed ORDER BY uid, period
		ON CONFLICT (user_id, period) DO UPDATE SET questions = p.questions + excluded.questions
		WHERE (SELECT a.lim = 0 OR p.questions + excluded.questions <= a.lim FROM a WHERE a.uid = p.user_id AND a.period = p.period)
		RETURNING p.user_id, p.period
	), g AS MATERIALIZED (
		SELECT ok.*, row_number() OVER (PARTITION BY ok.cid ORDER BY ok.i) AS r, count(*) OVER (PARTITION BY ok.cid) AS cn
		FROM ok JOIN a ON a.uid = ok.uid AND a.period = ok.period
		WHERE ok.ur <= a.n AND (a.existed OR EXISTS (SELECT 1 FROM ins WHERE ins.user_id = a.uid AND ins.period = a.period))
	), c AS (
		UPDATE conversations SET next_seq = next_seq + 2 * f.cn, last_activity_at = f.at,
		    title = CASE WHEN conversations.title = '' THEN f.title ELSE conversations.title END
		FROM (SELECT cid, max(cn) AS cn, max(at) AS at, (array_agg(title ORDER BY r))[1] AS title FROM g
		      WHERE NOT opens GROUP BY cid) f
		WHERE conversations.id = f.cid
		RETURNING conversations.id, conversations.user_id, conversations.title, mode, style, lesson_id, module_id,
		          next_seq, created_at, last_activity_at
	), nc AS (
		INSERT INTO conversations (id, user_id, title, mode, style, lesson_id, module_id, next_seq, last_activity_at)
		SELECT cid, uid, title, mode, style, lesson, lmod, 2, at FROM g WHERE opens ORDER BY cid
		RETURNING id, user_id, title, mode, style, lesson_id, module_id, next_seq, created_at, last_activity_at
	), cc AS (
		SELECT * FROM c UNION ALL SELECT * FROM nc
	), u AS (
		UPDATE users SET active_conversation_id = l.cid
		FROM (SELECT DISTINCT ON (uid) uid, cid FROM g ORDER BY uid, i DESC) l
		WHERE users.id = l.uid AND users.active_conversation_id IS DISTINCT FROM l.cid
	), gs AS MATERIALIZED (
		SELECT g.*, cc.next_seq - 2 * (g.cn - g.r + 1) AS seq FROM g JOIN cc ON cc.id = g.cid
	), qm AS (
		INSERT INTO messages (id, conversation_id, user_id, seq, role, content, status, metadata, created_at, completed_at)
		SELECT qid, cid, uid, seq, 'user', content, 'complete', meta, at, at FROM gs
	), am AS (
		INSERT INTO messages (id, conversation_id, user_id, seq, role, status, quota_period, created_at,
			lease_owner, lease_until)
		SELECT aid, cid, uid, seq + 1, 'assistant', 'streaming', period, at,
			owner, now() + ttl * interval '1 millisecond' FROM gs
	)
	SELECT req.i, ok.i IS NOT NULL AS found, coalesce(ok.plan, '') AS plan, coalesce(ok.locale, '') AS locale,
	       coalesce(a.existed OR ins.user_id IS NOT NULL, false) AS settled, coalesce(a.old + a.n, 0) AS used, coalesce(a.lim, 0) AS lim,
	       gs.seq, gs.qid AS question_id,
	       gs.i IS NOT NULL AND NOT req.opens
	         AND EXISTS (SELECT 1 FROM context_turns t WHERE t.conversation_id = req.cid AND t.user_id = req.uid) AS has_context,
	       c.id, c.user_id, c.title, c.mode, c.style, c.lesson_id, c.module_id, c.next_seq, c.created_at, c.last_activity_at
	FROM req LEFT JOIN ok ON ok.i = req.i
	LEFT JOIN a ON a.uid = ok.uid AND a.period = ok.period
	LEFT JOIN ins ON ins.user_id = a.uid AND ins.period = a.period
	LEFT JOIN gs ON gs.i = req.i LEFT JOIN cc c ON c.id = gs.cid`

// turnsRow is one ask's row of recordTurnsSQL: whether its conversation
// was found, whether its user's quota was settled (else it runs alone),
// the user's count after the batch, and when admitted what was written.
type turnsRow struct {
	I          int
	Found      bool
	Plan       string
	Locale     string
	Settled    bool
	Used       int
	Lim        int
	Seq        *int
	QuestionID *string
	HasContext bool
	Conversation
}

// recordTurnBatch is BeginTurn's batch: outs[i] and errs[i] answer ins[i].
// One ask alone runs the single statement, which needs no ranking.
func (s *Messages) recordTurnBatch(ctx context.Context, ins []TurnInput) ([]*Turn, []error) {
	db := s.db.WithContext(ctx)
	outs, errs := make([]*Turn, len(ins)), make([]error, len(ins))
	var alone []int
	if len(ins) == 1 {
		alone = []int{0}
	} else if rows, err := recordTurns(db, ins); err != nil {
		for i := range ins {
			alone = append(alone, i)
		}
	} else {
		for i, r := range rows {
			// Not found, or a help question the user's organization
			// refuses: the single statement says which.
			if !r.Found || !r.Settled {
				alone = append(alone, i)
				continue
			}
			outs[i], errs[i] = r.turn(ins[i])
		}
	}
	for _, i := range alone {
		outs[i], errs[i] = recordTurn(db, ins[i])
	}
	return outs, errs
}

// recordTurns runs recordTurnsSQL; rows[i] answers ins[i].
func recordTurns(db *gorm.DB, ins []TurnInput) ([]turnsRow, error) {
	lines := make([]turnLine, len(ins))
	for i, in := range ins {
		meta := json.RawMessage(in.Metadata)
		if len(meta) == 0 {
			meta = json.RawMessage("{}")
		}
		lines[i] = turnLine{I: i, CID: in.ConversationID, UID: in.UserID, Period: Period(in.Now).Format(time.DateOnly),
			At: in.Now, Title: TitleFrom(in.Content), Content: in.Content, Meta: meta,
			AID: in.AssistantID, QID: uuid.NewString(), Owner: in.Lease.owner(), TTL: in.Lease.ttlMs()}
		if o := in.Opens; o != nil {
			lines[i].Opens, lines[i].Mode, lines[i].Style, lines[i].Lesson, lines[i].Module = true, o.Mode, o.Style, o.LessonID, o.ModuleID
		}
	}
	got, err := jsonRows[turnsRow](db, "record questions", recordTurnsSQL, lines)
	if err != nil {
		return nil, err
	}
	rows := make([]turnsRow, len(ins))
	seen := 0
	for _, r := range got {
		if r.I >= 0 && r.I < len(rows) {
			rows[r.I] = r
			seen++
		}
	}
	if seen != len(ins) {
		return nil, fmt.Errorf("record questions: %d rows for %d asks", seen, len(ins))
	}
	return rows, nil
}

// turn is what the caller of one settled ask gets: ErrNotFound, its
// *QuotaError, or its Turn.
func (r turnsRow) turn(in TurnInput) (*Turn, error) {
	switch {
	case !r.Found:
		return nil, in.missing()
	case r.Seq == nil:
		return nil, &QuotaError{Plan: r.Plan, Used: r.Used, Limit: r.Lim, ResetAt: NextPeriod(in.Now)}
	case r.QuestionID == nil:
		return nil, fmt.Errorf("record question: the conversation changed while it was locked")
	}
	c := r.Conversation
	// The caller sees its conversation as the single statement shows it:
	// just after its own two messages.
	c.NextSeq = *r.Seq + 2
	return newTurn(in, c, *r.QuestionID, r.Locale, r.HasContext, r.Plan, quotaOf(r.Used, r.Lim)), nil
}
