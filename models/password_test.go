package models_test

import (
	"errors"
	"testing"

	"aula/models"
)

func TestPasswordRules(t *testing.T) {
	tests := []struct {
		password string
		want     error
	}{
		{"12345678", models.ErrShortPassword},
		{"password", models.ErrShortPassword},
		{"        ", models.ErrShortPassword},
		{"short-pw1", models.ErrShortPassword},
		{"          ", models.ErrCommonPassword},
		{"1234567890", models.ErrCommonPassword},
		{"1234567890!", models.ErrCommonPassword},
		{"0987654321", models.ErrCommonPassword},
		{"abcdefghij", models.ErrCommonPassword},
		{"qwertyuiop", models.ErrCommonPassword},
		{"aaaaaaaaaa", models.ErrCommonPassword},
		{"ababababab", models.ErrCommonPassword},
		{"Password2024!", models.ErrCommonPassword},
		{"P@ssw0rd123", models.ErrCommonPassword},
		{"iloveyou12", models.ErrCommonPassword},
		{"contraseña123", models.ErrCommonPassword},
		{"1q2w3e4r5t", models.ErrCommonPassword},
		{string(make([]byte, 257)), models.ErrLongPassword},
		{"correct horse battery", nil},
		{"a long enough password", nil},
		{"vlan-trunk-42!", nil},
		{"contraseña de verdad", nil},
	}
	for _, tt := range tests {
		if err := models.ValidatePassword(tt.password); !errors.Is(err, tt.want) {
			t.Errorf("ValidatePassword(%q) = %v, want %v", tt.password, err, tt.want)
		}
	}
}
