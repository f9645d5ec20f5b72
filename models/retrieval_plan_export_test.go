package models

import "time"

// PlanOnce is planOnce, for the models_test package.
var PlanOnce = planOnce

// SetChunksClock makes s read the time from now (the known terms' expiry).
func SetChunksClock(s *Chunks, now func() time.Time) { s.now = now }

// How long a check's answer for a known and an unknown term is remembered.
const (
	KnownFor   = knownFor
	UnknownFor = unknownFor
)
