package esdbtest

import (
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"
)

// noStream is the stream revision of a stream that has no events, as the
// server's index reports it (ExpectedVersion.NoStream == -1).
const noStream int64 = -1

// record is one entry of the in-memory transaction log. Event records are
// what reads and subscriptions return; a "no data" record is what the server
// writes for an append with no events (it occupies a position, it is never
// read).
type record struct {
	pos     uint64 // log position; commit == prepare, as for self-committed prepares
	stream  string
	rev     int64 // stream revision; -1 for a no-data record
	id      uuid.UUID
	typ     string
	json    bool
	data    []byte
	meta    []byte
	created int64 // .NET ticks (100 ns) since the Unix epoch, as the "created" metadata entry
}

func (r *record) isEvent() bool { return r.rev >= 0 }

// size approximates the on-disk size of a prepare record (length prefix and
// suffix, header, stream, type, data, metadata), so that positions advance
// like byte offsets in a real transaction file rather than by one.
func (r *record) size() uint64 {
	return 96 + uint64(len(r.stream)+len(r.typ)+len(r.data)+len(r.meta))
}

// eventInfo is what the idempotency cache remembers of a committed event.
type eventInfo struct {
	stream string
	rev    int64
}

// idCache is the bounded cache of recently committed event ids that the
// server's IndexWriter consults for idempotency when the expected version is
// any or stream_exists. The oldest ids fall out first.
type idCache struct {
	cap   int
	m     map[uuid.UUID]eventInfo
	order []uuid.UUID // ring of inserted ids, oldest at head
	head  int
}

func newIDCache(capacity int) *idCache {
	return &idCache{cap: capacity, m: make(map[uuid.UUID]eventInfo)}
}

func (c *idCache) get(id uuid.UUID) (eventInfo, bool) {
	info, ok := c.m[id]
	return info, ok
}

func (c *idCache) put(id uuid.UUID, info eventInfo) {
	if c.cap <= 0 {
		return
	}
	if _, ok := c.m[id]; ok {
		c.m[id] = info
		return
	}
	if len(c.order) < c.cap {
		c.order = append(c.order, id)
	} else {
		delete(c.m, c.order[c.head])
		c.order[c.head] = id
		c.head = (c.head + 1) % c.cap
	}
	c.m[id] = info
}

func (c *idCache) reset() {
	c.m = make(map[uuid.UUID]eventInfo)
	c.order = nil
	c.head = 0
}

// eventLog is the server's storage: the transaction log in position order,
// the per-stream index and the idempotency cache. All fields are guarded by
// mu.
type eventLog struct {
	mu      sync.RWMutex
	records []*record            // every record, strictly increasing pos
	streams map[string][]*record // event records of each stream, by revision
	ids     *idCache
	end     uint64        // position of the next record (the writer checkpoint)
	changed chan struct{} // closed and replaced after every write
	now     func() time.Time
}

func newEventLog(cacheSize int, now func() time.Time) *eventLog {
	l := &eventLog{
		streams: make(map[string][]*record),
		ids:     newIDCache(cacheSize),
		changed: make(chan struct{}),
		now:     now,
	}
	// A fresh node's log does not start with user events: an epoch record
	// comes first and the node writes a few system events on start. They
	// make the first user position non-zero and put $-streams in $all, as a
	// real server does.
	l.appendNoData("$epoch-information")
	for _, sys := range []struct{ stream, typ, data string }{
		{"$$$scavenges", "$metadata", `{"$maxAge":2592000}`},
		{"$users", "$UserCreated", `{"loginName":"admin"}`},
		{"$user-admin", "$user", `{"loginName":"admin","fullName":"Event Store Administrator"}`},
	} {
		l.appendEvents(sys.stream, noStream, []proposed{{id: uuid.New(), typ: sys.typ, json: true, data: []byte(sys.data)}})
	}
	return l
}

// proposed is one event of an append request.
type proposed struct {
	id   uuid.UUID
	typ  string
	json bool
	data []byte
	meta []byte
}

// lastRev returns the stream's last revision, or -1. Callers hold mu.
func (l *eventLog) lastRev(stream string) int64 {
	return int64(len(l.streams[stream])) - 1
}

// appendEvents writes evs to stream after revision cur. Callers hold mu for
// writing and have checked the expected version.
func (l *eventLog) appendEvents(stream string, cur int64, evs []proposed) []*record {
	ticks := l.now().UnixNano() / 100
	out := make([]*record, 0, len(evs))
	for i, e := range evs {
		r := &record{
			pos: l.end, stream: stream, rev: cur + 1 + int64(i), id: e.id, typ: e.typ,
			json: e.json, data: e.data, meta: e.meta, created: ticks,
		}
		l.end += r.size()
		l.records = append(l.records, r)
		l.streams[stream] = append(l.streams[stream], r)
		l.ids.put(e.id, eventInfo{stream: stream, rev: r.rev})
		out = append(out, r)
	}
	l.notify()
	return out
}

// appendNoData writes the record an append without events leaves in the log.
func (l *eventLog) appendNoData(stream string) *record {
	r := &record{pos: l.end, stream: stream, rev: -1}
	l.end += r.size()
	l.records = append(l.records, r)
	l.notify()
	return r
}

func (l *eventLog) notify() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// firstAtOrAfter returns the index of the first record whose position is
// >= pos. Callers hold mu.
func (l *eventLog) firstAtOrAfter(pos uint64) int {
	return sort.Search(len(l.records), func(i int) bool { return l.records[i].pos >= pos })
}

// validPosition reports whether a read may start at commit position pos: the
// start of the log, the end or beyond, or exactly the start of a record. A
// real server refuses a position inside a record ("Trying to read from an
// invalid position."). Callers hold mu.
func (l *eventLog) validPosition(pos uint64) bool {
	if pos == 0 || pos >= l.end {
		return true
	}
	i := l.firstAtOrAfter(pos)
	return i < len(l.records) && l.records[i].pos == pos
}

// eventAt returns the event of stream at rev, or nil. Callers hold mu.
func (l *eventLog) eventAt(stream string, rev int64) *record {
	evs := l.streams[stream]
	if rev < 0 || rev >= int64(len(evs)) {
		return nil
	}
	return evs[rev]
}
