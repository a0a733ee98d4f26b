//go:build race

package api_test

// raceScale stretches the time bounds of tests that measure an answer's
// time: the race detector makes this package's regular expressions and
// allocations ten to twenty times slower than a real build's.
const raceScale = 8
