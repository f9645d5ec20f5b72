package pgtest

import "testing"

// UserColumns lists every column of the schema that holds a user id
// (user_id, *_by, users.id), read from information_schema so a table
// added later is checked too.
func UserColumns(t testing.TB, db *DB) [][2]string {
	t.Helper()
	rows, err := db.Raw(`SELECT c.table_name, c.column_name FROM information_schema.columns c
		JOIN information_schema.tables t USING (table_schema, table_name)
		WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.data_type = 'uuid'
		AND (c.column_name LIKE '%user_id' OR c.column_name LIKE '%\_by' OR (c.table_name = 'users' AND c.column_name = 'id'))
		ORDER BY 1, 2`).Rows()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var tc [2]string
		if err := rows.Scan(&tc[0], &tc[1]); err != nil {
			t.Fatal(err)
		}
		out = append(out, tc)
	}
	return out
}

// RowsNaming counts, per "table.column" of UserColumns, the rows naming the user id.
func RowsNaming(t testing.TB, db *DB, id string) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, tc := range UserColumns(t, db) {
		var c int
		if err := db.Raw(`SELECT count(*) FROM `+ident(tc[0])+` WHERE `+ident(tc[1])+` = ?`, id).Row().Scan(&c); err != nil {
			t.Fatal(err)
		}
		n[tc[0]+"."+tc[1]] = c
	}
	return n
}
