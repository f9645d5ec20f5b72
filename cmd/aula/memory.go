package main

import (
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// defaultMemoryLimit is AULA_MEMORY_LIMIT's default: none, the runtime's
// own pacing. A limit is the memory the Go runtime aims to stay under
// (heap, goroutine stacks and its own data; the resident size adds the
// program's code, 20 to 35 MiB). Near it the collector runs sooner rather
// than letting the heap grow to twice what is live; but at a class of a
// thousand answers what is live (heap and stacks) is itself about 100 MiB,
// and a 130MiB limit held the peak at 148-158 MB (174-187 MB without) for
// 40-80 % more CPU and a p99 first token up to twice as late (README, "A
// class at once: memory"). So it is for an instance under a memory cap,
// set below that cap, not a default; while many answers stream the
// collector already runs at a lower GOGC (pacing.go).
const defaultMemoryLimit = math.MaxInt64

// memoryLimit reads AULA_MEMORY_LIMIT: a size in bytes with an optional
// B, KiB, MiB or GiB suffix (GOMEMLIMIT's form, such as 512MiB), or off.
func (e *envReader) memoryLimit() int64 {
	v := e.str("AULA_MEMORY_LIMIT", "")
	if v == "" {
		return defaultMemoryLimit
	}
	if strings.EqualFold(v, "off") {
		return math.MaxInt64
	}
	n, ok := parseSize(v)
	if !ok || n < 16<<20 {
		e.problem("AULA_MEMORY_LIMIT=%q must be a size of at least 16MiB, such as 512MiB or 1GiB, or off", v)
		return defaultMemoryLimit
	}
	return n
}

// parseSize reads a whole number of bytes with an optional binary suffix.
func parseSize(v string) (int64, bool) {
	units := []struct {
		suffix string
		shift  uint
	}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}
	shift := uint(0)
	for _, u := range units {
		if num, ok := strings.CutSuffix(v, u.suffix); ok {
			v, shift = num, u.shift
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64>>shift {
		return 0, false
	}
	return n << shift, true
}

// applyMemoryLimit sets the runtime's soft memory limit, unless GOMEMLIMIT
// already set one: the runtime's own variable, when given, wins.
func applyMemoryLimit(limit int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(limit)
}
