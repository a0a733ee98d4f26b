package fanout

// TurnsFollowed counts the turns that have followers (JoinTurn) joined.
func (b *Broadcaster) TurnsFollowed() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.turns)
}

// Queued counts the frames queued for a turn follower.
func (c *Client) Queued() int {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	return len(c.q)
}
