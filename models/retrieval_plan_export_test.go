package models

// PlanOnce is planOnce, for the models_test package.
var PlanOnce = planOnce
