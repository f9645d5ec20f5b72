package importer_test

import (
	"testing"

	"aula/internal/pgtest"
)

// TestMain runs the importer tests against one throwaway PostgreSQL
// cluster; each test takes a fresh database from it with pgtest.New.
func TestMain(m *testing.M) { pgtest.Main(m) }
