// Package fanout feeds many live readers from one store subscription: a
// Broadcaster follows the log once, encodes each event once into a Frame,
// and publishes it into a fixed ring that every Client reads at its own
// pace. A client that falls further behind than the ring holds is cut off
// (ErrSlow) instead of slowing the others or buffering without bound; it
// resumes from the store by position.
//
// Hand-over without a gap or a duplicate: Join returns the position of the
// last frame published before the client's cursor, atomically with the
// cursor, so "everything up to Joined() from the store, then the ring" is
// exactly the log; frames at or before what a client already sent are
// skipped by position.
package fanout

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"turnstile/domain/eventstore"
	"turnstile/internal/follow"
)

// Frame is one event, encoded once for every reader.
type Frame struct {
	// Position is the event's store position.
	Position eventstore.Position
	// TurnID and Workspace let a reader filter without decoding Bytes.
	TurnID, Workspace string
	// Bytes is the complete encoded frame, shared read-only by every reader.
	Bytes []byte
	// Message, when the encoder sets it, is the frame's payload alone (a
	// sub-slice of Bytes, shared the same way), for a transport that frames
	// messages itself (the JSON-RPC WebSocket).
	Message []byte

	seq uint64 // ring sequence number, set by publish
}

// Encoder turns a stored event into its frame; a nil frame skips the event.
// It is called from the broadcaster's goroutine only.
type Encoder func(ctx context.Context, rec *eventstore.RecordedEvent) (*Frame, error)

// FrameBytes is the default byte allowance per slot of the ring (MaxBytes
// is Buffer × FrameBytes unless set): an event's frame is usually well
// under 1 KiB.
const FrameBytes = 8 << 10

// ErrSlow is the error of a client that fell behind by more than the ring
// holds.
var ErrSlow = errors.New("fanout: slow consumer: fell behind by more than the buffer holds")

// Config configures a Broadcaster.
type Config struct {
	Store  eventstore.Store
	Prefix string // stream name prefix to subscribe to
	// From is the position after which the broadcast starts (the head
	// before the first event is published).
	From   eventstore.Position
	Encode Encoder
	// Buffer is the ring's size in frames, rounded up to a power of two
	// (default 8192): how far a client may fall behind before it is cut off.
	Buffer int
	// MaxBytes bounds the bytes of the frames the ring holds (default
	// FrameBytes per slot): past it the oldest frames are dropped, and a
	// client that has not read them is cut off as slow, as when the ring
	// wraps. The frames' sizes come from what clients send (a prompt, a
	// command): without it, a few thousand large ones stayed in memory.
	MaxBytes int
	// Interval is the least time between two wake-ups of the clients
	// (default 25ms): under load, each wake-up carries a batch of frames, so
	// a client writes once per batch, not once per event. The first event
	// after a quiet spell wakes them at once.
	Interval time.Duration
	// PerClient stretches that interval with the number of clients, to at
	// least PerClient × clients (default 100µs: at most ~10,000 client
	// wake-ups a second in all, however many clients there are, so each
	// write carries more frames rather than the server paying a write, a
	// flush and a goroutine switch per client per event batch; 1,000
	// clients are woken every 100ms, in eight cohorts
	// 12.5ms apart).
	PerClient time.Duration
	// OnSlow, when set, is called once for each client cut off as slow.
	OnSlow func()
	// OnError, when set, is told of a dropped subscription (it is resumed).
	OnError func(error)
}

// Broadcaster publishes the frames of one subscription to every client.
type Broadcaster struct {
	cfg  Config
	ring []atomic.Pointer[Frame]
	mask uint64
	// next is the sequence number of the next frame to publish: frames
	// [max(tail, next-len(ring)), next) are readable. Stored after their
	// slots.
	next atomic.Uint64
	// tail is the sequence number of the oldest frame the byte bound
	// keeps; the frames before it are dropped (their slots nil). Written
	// by the publisher only.
	tail atomic.Uint64
	// bytes is the size of the frames the ring holds (publisher only).
	bytes int
	// wake[k] is closed (and replaced) when the clients of cohort k should
	// look for frames.
	wake [cohorts]atomic.Pointer[chan struct{}]
	// joins numbers the clients into cohorts.
	joins atomic.Uint64

	mu      sync.Mutex // guards head, clients, turns, queued, followers, dirty, lastWake, timer
	head    eventstore.Position
	clients map[*Client]struct{} // the ring's readers (Join)
	// followers counts the turn followers (JoinTurn); queued holds those
	// that may have frames queued (the publisher checks their cut-off),
	// so a follower of a quiet turn costs nothing per batch.
	followers int
	queued    map[*Client]struct{}
	// turns holds the clients that follow one turn (JoinTurn), by turn:
	// the publisher queues each of the turn's frames for them, so a
	// follower of a quiet turn is neither woken nor scans the ring.
	turns map[string]map[*Client]struct{}
	// dirty[k] lists the turn followers of cohort k with frames queued
	// since the cohort was last woken.
	dirty [cohorts][]*Client
	// lastWake is when the clients were last woken; timer, when set, wakes
	// them at the end of the current interval.
	lastWake time.Time
	timer    *time.Timer

	done chan struct{} // closed when Run returns
	err  error         // why Run returned; set before done is closed
}

// New returns a broadcaster that will publish the events after cfg.From
// once Run runs; a client that joins before is told it starts after From.
func New(cfg Config) *Broadcaster {
	if cfg.Buffer <= 0 {
		cfg.Buffer = 8192
	}
	size := uint64(1)
	for size < uint64(cfg.Buffer) {
		size <<= 1
	}
	if cfg.Interval <= 0 {
		cfg.Interval = 25 * time.Millisecond
	}
	if cfg.PerClient <= 0 {
		cfg.PerClient = 100 * time.Microsecond
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = int(size) * FrameBytes
	}
	b := &Broadcaster{cfg: cfg, ring: make([]atomic.Pointer[Frame], size), mask: size - 1,
		head:    cfg.From,
		clients: map[*Client]struct{}{}, turns: map[string]map[*Client]struct{}{}, queued: map[*Client]struct{}{}, done: make(chan struct{})}
	for k := range b.wake {
		ch := make(chan struct{})
		b.wake[k].Store(&ch)
	}
	return b
}

// Buffer is the ring's size in frames.
func (b *Broadcaster) Buffer() int { return len(b.ring) }

// Done is closed when the broadcaster has stopped; Err then says why.
func (b *Broadcaster) Done() <-chan struct{} { return b.done }

// Err is why the broadcaster stopped (nil while it runs).
func (b *Broadcaster) Err() error {
	select {
	case <-b.done:
		return b.err
	default:
		return nil
	}
}

// Clients counts the clients joined.
func (b *Broadcaster) Clients() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.clients) + b.followers
}

// Head is the position of the last frame published (or the start position).
func (b *Broadcaster) Head() eventstore.Position {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.head
}

// Run follows the store after cfg.From and publishes every event until ctx
// ends or the store closes. A dropped subscription is resumed from the last
// event published; an event the encoder refuses stops the broadcaster (its
// clients end with that error).
func (b *Broadcaster) Run(ctx context.Context) error {
	err := b.run(ctx)
	b.mu.Lock()
	if b.timer != nil {
		b.timer.Stop()
	}
	b.mu.Unlock()
	b.err = err
	close(b.done)
	return err
}

func (b *Broadcaster) run(ctx context.Context) error {
	return follow.Loop(ctx, func() error { return b.follow(ctx) }, b.cfg.OnError)
}

// follow subscribes from the head and publishes until the subscription
// fails. One goroutine receives; this one encodes and publishes whatever
// has arrived as one batch, so the clients wake once per batch.
func (b *Broadcaster) follow(ctx context.Context) error {
	sub, err := b.cfg.Store.Subscribe(ctx, b.Head(), b.cfg.Prefix)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer sub.Close()
	recs := make(chan *eventstore.RecordedEvent, 512)
	errc := make(chan error, 1)
	go func() {
		for {
			m, err := sub.Recv(ctx)
			if err != nil {
				errc <- err
				return
			}
			if m.Event == nil {
				continue
			}
			select {
			case recs <- m.Event:
			case <-ctx.Done():
				errc <- ctx.Err()
				return
			}
		}
	}()
	batch := make([]*Frame, 0, 512)
	for {
		var rec *eventstore.RecordedEvent
		select {
		case rec = <-recs:
		case err := <-errc:
			return err
		}
		batch = batch[:0]
		for rec != nil {
			f, err := b.cfg.Encode(ctx, rec)
			if err != nil {
				return follow.Fatal(err)
			}
			if f == nil {
				f = &Frame{} // a skipped event still moves the head
			}
			f.Position = rec.Position
			batch = append(batch, f)
			rec = nil
			if len(batch) < cap(batch) {
				select {
				case rec = <-recs:
				default:
				}
			}
		}
		b.publish(batch)
	}
}

// publish puts a batch into the ring, advances the head, cuts off the
// clients it overran, and wakes the rest.
func (b *Broadcaster) publish(batch []*Frame) {
	n, tail := b.next.Load(), b.tail.Load()
	size := uint64(len(b.ring))
	for _, f := range batch {
		f.seq = n
		slot := &b.ring[n&b.mask]
		if old := slot.Load(); old != nil && old.seq+size == n {
			b.bytes -= len(old.Bytes) // overwritten: the ring wraps
		}
		slot.Store(f)
		b.bytes += len(f.Bytes)
		n++
		tail = max(tail, n-min(n, size))
		// Past the byte bound the oldest frames go (the newest stays).
		for b.bytes > b.cfg.MaxBytes && tail < n-1 {
			old := &b.ring[tail&b.mask]
			if f := old.Load(); f != nil && f.seq == tail {
				b.bytes -= len(f.Bytes)
				old.Store(nil)
			}
			tail++
		}
	}
	b.tail.Store(tail)
	b.mu.Lock()
	b.next.Store(n)
	b.head = batch[len(batch)-1].Position
	if len(b.turns) > 0 {
		for _, f := range batch {
			if f.Bytes == nil || f.TurnID == "" {
				continue
			}
			for c := range b.turns[f.TurnID] {
				if c.enqueue(f) {
					b.queued[c] = struct{}{}
				}
				if !c.dirty {
					c.dirty = true
					b.dirty[c.cohort] = append(b.dirty[c.cohort], c)
				}
			}
		}
	}
	for c := range b.queued {
		// Its queue holds only frames the ring still holds: the ring's
		// size and byte bound are the queues' too.
		switch oldest := c.oldest.Load(); {
		case oldest == noneQueued:
			delete(b.queued, c) // taken since
		case oldest < tail:
			c.kick()
			delete(b.queued, c)
		}
	}
	for c := range b.clients {
		if cur := c.cursor.Load(); n-cur > size || cur < tail {
			c.kick()
		}
	}
	// Stretched for the clients woken: the ring's readers and the
	// followers with frames, not those of quiet turns.
	woken := len(b.clients)
	for k := range b.dirty {
		woken += len(b.dirty[k])
	}
	interval := max(b.cfg.Interval, time.Duration(woken)*b.cfg.PerClient)
	wakeNow := time.Since(b.lastWake) >= interval
	if wakeNow {
		b.lastWake = time.Now()
	} else if b.timer == nil {
		b.timer = time.AfterFunc(interval-time.Since(b.lastWake), func() {
			b.mu.Lock()
			b.timer, b.lastWake = nil, time.Now()
			b.mu.Unlock()
			b.wakeAll(interval)
		})
	}
	b.mu.Unlock()
	if wakeNow {
		b.wakeAll(interval)
	}
}

// cohorts is how many groups the clients are woken in when the interval is
// stretched for their number: each group a fraction of the interval after
// the one before, so that a thousand writers (and their readers) do not all
// run at once and queue everything else on the machine behind them.
const cohorts = 8

// wakeAll wakes every cohort: at once when the interval is the configured
// one, spread over the interval when it was stretched.
func (b *Broadcaster) wakeAll(interval time.Duration) {
	b.wakeCohort(0)
	step := interval / cohorts
	for k := 1; k < cohorts; k++ {
		if interval <= b.cfg.Interval {
			b.wakeCohort(k)
			continue
		}
		time.AfterFunc(time.Duration(k)*step, func() { b.wakeCohort(k) })
	}
}

func (b *Broadcaster) wakeCohort(k int) {
	ch := make(chan struct{})
	close(*b.wake[k].Swap(&ch))
	b.mu.Lock()
	ds := b.dirty[k]
	b.dirty[k] = nil
	for _, c := range ds {
		c.dirty = false
	}
	b.mu.Unlock()
	for _, c := range ds {
		select {
		case c.sig <- struct{}{}:
		default: // a wake-up is already waiting
		}
	}
}

// Join adds a client whose first frame is the next one published. Its
// Joined position is the last event published before it: a client that
// resumes from an earlier position reads the store up to Joined, then
// the ring.
func (b *Broadcaster) Join() *Client {
	c := &Client{b: b, kicked: make(chan struct{}), cohort: int(b.joins.Add(1) % cohorts)}
	b.mu.Lock()
	defer b.mu.Unlock()
	c.cursor.Store(b.next.Load())
	c.joined = b.head
	b.clients[c] = struct{}{}
	return c
}

// JoinTurn adds a client that follows one turn: it gets that turn's frames
// only (those with that TurnID), queued for it by the publisher, and is
// woken only when some were queued. Joined, Take, Pending and the cut-off
// of a slow client work as for Join: it is cut off when the ring drops (it
// wraps, or its byte bound) a frame still queued for it.
func (b *Broadcaster) JoinTurn(turnID string) *Client {
	c := &Client{b: b, kicked: make(chan struct{}), cohort: int(b.joins.Add(1) % cohorts),
		turn: turnID, sig: make(chan struct{}, 1)}
	c.oldest.Store(noneQueued)
	b.mu.Lock()
	defer b.mu.Unlock()
	c.joined = b.head
	b.followers++
	set := b.turns[turnID]
	if set == nil {
		set = map[*Client]struct{}{}
		b.turns[turnID] = set
	}
	set[c] = struct{}{}
	return c
}

// noneQueued is a turn follower's oldest queued sequence number when its
// queue is empty.
const noneQueued = ^uint64(0)

// Client is one reader of the ring.
type Client struct {
	b      *Broadcaster
	cohort int // which of the broadcaster's wake channels is the client's
	// turn, set by JoinTurn, is the turn the client follows; its frames
	// come through q, and its wake-ups through sig.
	turn string
	sig  chan struct{}
	qmu  sync.Mutex // guards q and cut
	q    []*Frame
	cut  bool // cut off: q stays empty
	// oldest is the sequence number of q's first frame (noneQueued when
	// q is empty), for the publisher's cut-off without the client's lock.
	oldest atomic.Uint64
	dirty  bool // in the broadcaster's dirty list (guarded by b.mu)
	// cursor is the sequence number of the next frame to read; written by
	// the client's goroutine, read by the publisher.
	cursor atomic.Uint64
	joined eventstore.Position
	// kicked is closed when the publisher overran the client.
	kicked   chan struct{}
	kickOnce sync.Once
	// onKick is called (from the publisher) when the client is cut off.
	onKick atomic.Pointer[func()]
}

// Joined is the position of the last event published before the client
// joined.
func (c *Client) Joined() eventstore.Position { return c.joined }

// OnKick sets a function the publisher calls when it cuts the client off
// (e.g. to unblock a write the client is stuck in).
func (c *Client) OnKick(f func()) { c.onKick.Store(&f) }

// enqueue queues f for a turn follower, and says whether it is the first
// queued. The queue holds no more than the ring: the publisher cuts off a
// follower whose oldest queued frame the ring no longer holds.
func (c *Client) enqueue(f *Frame) bool {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	if c.cut {
		return false // cut off: nothing more is kept for it
	}
	c.q = append(c.q, f)
	if len(c.q) == 1 {
		c.oldest.Store(f.seq)
		return true
	}
	return false
}

func (c *Client) kick() {
	c.kickOnce.Do(func() {
		close(c.kicked)
		if c.turn != "" {
			c.qmu.Lock()
			c.q, c.cut = nil, true // what it had not taken is gone, as from the ring
			c.oldest.Store(noneQueued)
			c.qmu.Unlock()
		}
		if c.b.cfg.OnSlow != nil {
			c.b.cfg.OnSlow()
		}
		if f := c.onKick.Load(); f != nil {
			(*f)()
		}
	})
}

// Kicked is closed when the client has been cut off as slow.
func (c *Client) Kicked() <-chan struct{} { return c.kicked }

// Wake returns a channel that is ready when new frames may be available.
// Take it before Take, so a frame published in between is not missed.
func (c *Client) Wake() <-chan struct{} {
	if c.turn != "" {
		return c.sig
	}
	return *c.b.wake[c.cohort].Load()
}

// Take appends to buf every frame published since the last Take, up to
// cap(buf), and returns it. It returns ErrSlow once the client has been
// overrun (the frames it missed are gone from the ring).
func (c *Client) Take(buf []*Frame) ([]*Frame, error) {
	select {
	case <-c.kicked:
		return buf, ErrSlow
	default:
	}
	if c.turn != "" {
		return c.takeQueued(buf), nil
	}
	n, cur := c.b.next.Load(), c.cursor.Load()
	if n-cur > uint64(len(c.b.ring)) || cur < c.b.tail.Load() {
		c.kick()
		return buf, ErrSlow
	}
	for ; cur < n && len(buf) < cap(buf); cur++ {
		f := c.b.ring[cur&c.b.mask].Load()
		if f == nil || f.seq != cur {
			c.kick() // overwritten while we read
			return buf, ErrSlow
		}
		if f.Bytes != nil {
			buf = append(buf, f)
		}
	}
	c.cursor.Store(cur)
	return buf, nil
}

// takeQueued moves a turn follower's queued frames to buf, up to cap(buf).
func (c *Client) takeQueued(buf []*Frame) []*Frame {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	k := min(len(c.q), cap(buf)-len(buf))
	buf = append(buf, c.q[:k]...)
	rest := copy(c.q, c.q[k:])
	clear(c.q[rest:])
	c.q = c.q[:rest]
	if rest == 0 {
		c.oldest.Store(noneQueued)
	} else {
		c.oldest.Store(c.q[0].seq)
	}
	return buf
}

// Pending reports whether frames are waiting for the client.
func (c *Client) Pending() bool {
	if c.turn != "" {
		return c.oldest.Load() != noneQueued
	}
	return c.b.next.Load() > c.cursor.Load()
}

// Leave removes the client.
func (c *Client) Leave() {
	c.b.mu.Lock()
	delete(c.b.clients, c)
	if set := c.b.turns[c.turn]; c.turn != "" && set != nil {
		if _, ok := set[c]; ok {
			c.b.followers--
		}
		delete(c.b.queued, c)
		delete(set, c)
		if len(set) == 0 {
			delete(c.b.turns, c.turn)
		}
	}
	c.b.mu.Unlock()
}
