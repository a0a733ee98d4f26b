//go:build !race

package api

// raceScale: see race_on_test.go.
const raceScale = 1
