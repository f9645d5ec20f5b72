package models

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// IsInvalidText reports whether PostgreSQL refused text it cannot store (a
// NUL character, invalid UTF-8): the client's input, never a server fault.
func IsInvalidText(err error) bool {
	var pgErr *pgconn.PgError
	// 22021 character_not_in_repertoire ("invalid byte sequence"), 22P05
	// untranslatable_character ("\u0000 cannot be converted to text").
	return errors.As(err, &pgErr) && (pgErr.Code == "22021" || pgErr.Code == "22P05")
}
