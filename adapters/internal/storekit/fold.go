package storekit

// Fold is a store's single writer loop: it receives requests from reqs and
// hands them to commit in batches, each the first request waiting and those
// queued behind it at that moment, at most max of them and, when weight is
// not nil, no more once their weights reach maxWeight. A batch is one group
// commit. Fold returns when reqs is closed and every request has been
// committed. commit must not keep the batch.
func Fold[R any](reqs <-chan R, max int, weight func(R) int, maxWeight int, commit func(batch []R)) {
	weigh := func(r R) int {
		if weight == nil {
			return 0
		}
		return weight(r)
	}
	batch := make([]R, 0, max)
	for {
		req, ok := <-reqs
		if !ok {
			return
		}
		batch = append(batch[:0], req)
		w := weigh(req)
	fold:
		for len(batch) < max && (weight == nil || w < maxWeight) {
			select {
			case req, ok := <-reqs:
				if !ok {
					break fold
				}
				batch = append(batch, req)
				w += weigh(req)
			default:
				break fold
			}
		}
		commit(batch)
		clear(batch)
	}
}
