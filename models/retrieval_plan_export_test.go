package models

// PlanOnce is planOnce, for the models_test package.
var PlanOnce = planOnce

// How long a check's answer for a known and an unknown term is remembered.
const (
	KnownFor   = knownFor
	UnknownFor = unknownFor
)
