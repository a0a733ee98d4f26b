package storekit

import (
	"slices"
	"testing"
)

// TestFold queues requests before the writer starts, so that every batch
// is decided by the limits alone: at most max requests, and no more once
// their weights reach maxWeight (the request that reaches it is the last).
// Without a weight only max limits a batch; a closed queue ends Fold after
// the last batch.
func TestFold(t *testing.T) {
	for _, c := range []struct {
		name      string
		n, max    int
		weight    func(int) int
		maxWeight int
		want      [][]int
	}{
		{"count", 7, 3, nil, 0, [][]int{{0, 1, 2}, {3, 4, 5}, {6}}},
		{"one", 3, 1, nil, 0, [][]int{{0}, {1}, {2}}},
		{"weight", 6, 10, func(r int) int { return r }, 3, [][]int{{0, 1, 2}, {3}, {4}, {5}}},
		{"weight-under-count", 5, 2, func(int) int { return 1 }, 100, [][]int{{0, 1}, {2, 3}, {4}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			reqs := make(chan int, c.n)
			for i := range c.n {
				reqs <- i
			}
			close(reqs)
			var got [][]int
			Fold(reqs, c.max, c.weight, c.maxWeight, func(batch []int) { got = append(got, slices.Clone(batch)) })
			if !slices.EqualFunc(got, c.want, slices.Equal) {
				t.Fatalf("batches %v, want %v", got, c.want)
			}
		})
	}
}
