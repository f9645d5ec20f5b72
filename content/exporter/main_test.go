package exporter_test

import (
	"testing"

	"aula/internal/pgtest"
)

// TestMain runs the export tests against one throwaway PostgreSQL cluster.
func TestMain(m *testing.M) { pgtest.Main(m) }
