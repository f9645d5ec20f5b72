package models

import "time"

// PlanOnce is planOnce, for the models_test package.
var PlanOnce = planOnce

// SetChunksClock makes s read the time from now (the known terms' expiry).
func SetChunksClock(s *Chunks, now func() time.Time) { s.now = now }

// KnownFor is how long a check's known term is taken as known.
const KnownFor = knownFor
