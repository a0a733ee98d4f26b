//go:build race

package sandbox

// raceDetector reports whether this test binary was built with the race
// detector, whose shadow memory takes page faults of its own beside the
// heap's.
const raceDetector = true
