package storekit

// Stats are counters of an embedded store since Open.
type Stats struct {
	// Commits is the number of group commits written, each one fsynced (a
	// frame of the log store, a write transaction of the bbolt store).
	Commits uint64
	// Appends is the number of appends that wrote events.
	Appends uint64
	// Events is the number of events written.
	Events uint64
	// WaitingSubscribers is the number of subscriptions currently waiting
	// for a commit.
	WaitingSubscribers int64
}
