package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"turnstile/adapters/boltstore"
	"turnstile/adapters/logstore"
	"turnstile/api"
	"turnstile/domain/eventstore"
)

// The embedded stores of a data directory. A new data directory gets the
// log store (adapters/logstore) in logDirName; one that holds only a bbolt
// file of an earlier version (boltFileName) keeps using it until `turnstile
// migrate` converts it; after a migration the log store is used and the
// bbolt file is left for the user to remove.
const (
	logDirName   = "events"
	boltFileName = "events.db"
)

// embeddedStore says which embedded store a data directory uses and where.
type embeddedStore struct {
	kind string // "log" or "bolt"
	path string
	// staleBolt is set when a bbolt file remains next to the log store (a
	// migration's source, kept until the user removes it).
	staleBolt string
}

// chooseEmbedded picks the embedded store of data: the log store when its
// directory has been initialised (it holds a FORMAT file), else the bbolt
// file when one exists, else a new log store.
func chooseEmbedded(data string) (embeddedStore, error) {
	logDir := filepath.Join(data, logDirName)
	boltPath := filepath.Join(data, boltFileName)
	hasLog, err := exists(filepath.Join(logDir, "FORMAT"))
	if err != nil {
		return embeddedStore{}, err
	}
	hasBolt, err := exists(boltPath)
	if err != nil {
		return embeddedStore{}, err
	}
	switch {
	case hasLog && hasBolt:
		return embeddedStore{kind: "log", path: logDir, staleBolt: boltPath}, nil
	case hasBolt:
		return embeddedStore{kind: "bolt", path: boltPath}, nil
	}
	return embeddedStore{kind: "log", path: logDir}, nil
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// open opens the chosen store and describes it for the start-up banner.
func (e embeddedStore) open() (eventstore.Store, string, error) {
	if e.kind == "bolt" {
		st, err := boltstore.Open(e.path, boltstore.Options{})
		return st, "embedded bbolt " + e.path + " (an earlier version's store; `turnstile migrate` converts it to the log store)", err
	}
	st, err := logstore.Open(e.path, logstore.Options{})
	desc := "embedded log " + e.path
	if e.staleBolt != "" {
		desc += " (" + e.staleBolt + " was migrated and is no longer used: remove it when you no longer need it)"
	}
	return st, desc, err
}

// openEmbeddedFlag opens the store named by --store bolt:PATH or log:DIR.
func openEmbeddedFlag(kind, path string) (eventstore.Store, string, error) {
	if path == "" {
		return nil, "", fmt.Errorf("--store %s: needs a path", kind)
	}
	return embeddedStore{kind: kind, path: path}.open()
}

// storeGauges exports the embedded store's group-commit counters.
func storeGauges(metrics *api.Metrics, store eventstore.Store) {
	var stats func() (commits, appends, events uint64)
	switch st := store.(type) {
	case *boltstore.Store:
		stats = func() (uint64, uint64, uint64) { s := st.Stats(); return s.Commits, s.Appends, s.Events }
	case *logstore.Store:
		stats = func() (uint64, uint64, uint64) { s := st.Stats(); return s.Commits, s.Appends, s.Events }
	default:
		return
	}
	metrics.Gauge("turnstile_store_commits_total", func() float64 { c, _, _ := stats(); return float64(c) })
	metrics.Gauge("turnstile_store_appends_total", func() float64 { _, a, _ := stats(); return float64(a) })
	metrics.Gauge("turnstile_store_events_total", func() float64 { _, _, e := stats(); return float64(e) })
}
