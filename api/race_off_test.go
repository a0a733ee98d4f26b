//go:build !race

package api_test

// raceScale: see race_on_test.go.
const raceScale = 1
