package mcp_test

import (
	"testing"

	"aula/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }
