// Package heaptest measures the heap for tests that bound what code
// keeps alive.
package heaptest

import "runtime"

// Live is the heap's live bytes after a full collection (two: the
// second finishes the sweep of what the first freed).
func Live() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
