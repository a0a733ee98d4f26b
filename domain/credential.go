package domain

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"time"
)

// CredentialStream is the event stream of named credentials: every
// creation and revocation is an event of it, so every instance sharing a
// store reads the same set.
const CredentialStream = "credentials"

// Credential event types (schema version 1).
const (
	EventCredentialCreated = "credential.created"
	EventCredentialRevoked = "credential.revoked"
)

// CredentialCreated records a new credential. Only a salted hash of its
// secret is stored, never the secret.
//
// The hash is SHA-256(salt || secret), not a slow password hash: the secret
// is 32 bytes from crypto/rand (256 bits), so there is no dictionary to try
// and a brute force of the hash is out of reach, while a slow hash (bcrypt,
// argon2) would cost milliseconds on every request for no gain. The salt
// keeps two stores' hashes of one secret apart.
type CredentialCreated struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	Role       Role      `json:"role"`
	Workspaces []string  `json:"workspaces,omitempty"`
	Salt       string    `json:"salt"`
	Hash       string    `json:"hash"`
	CreatedAt  time.Time `json:"created_at"`
	CreatedBy  Actor     `json:"created_by"`
}

// CredentialRevoked records that a credential no longer authenticates.
type CredentialRevoked struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	RevokedAt time.Time `json:"revoked_at"`
	RevokedBy Actor     `json:"revoked_by"`
}

// Credential is one named credential as the events leave it.
type Credential struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Role       Role       `json:"role"`
	Workspaces []string   `json:"workspaces,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	CreatedBy  Actor      `json:"created_by"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
	RevokedBy  *Actor     `json:"revoked_by,omitempty"`
	salt, hash []byte
}

// Principal is who the credential authenticates.
func (c *Credential) Principal() Principal {
	return Principal{Name: c.Name, Role: c.Role, Workspaces: slices.Clone(c.Workspaces), CredentialID: c.ID}
}

// HashSecret is the stored hash of a secret with its salt.
func HashSecret(salt, secret []byte) []byte {
	h := sha256.New()
	h.Write(salt)
	h.Write(secret)
	return h.Sum(nil)
}

// Matches reports, in constant time, whether secret is the credential's.
func (c *Credential) Matches(secret []byte) bool {
	return subtle.ConstantTimeCompare(HashSecret(c.salt, secret), c.hash) == 1
}

// Credentials is the fold of the credential stream. Not safe for
// concurrent use.
type Credentials struct {
	byID map[string]*Credential
	// Next is the revision of the next event to apply.
	Next uint64
}

// Apply folds the event at revision Next. An unknown type fails loudly.
func (cs *Credentials) Apply(typ string, data []byte) error {
	if cs.byID == nil {
		cs.byID = map[string]*Credential{}
	}
	switch typ {
	case EventCredentialCreated:
		var ev CredentialCreated
		if err := json.Unmarshal(data, &ev); err != nil {
			return fmt.Errorf("credential event %d: %w", cs.Next, err)
		}
		salt, err1 := hex.DecodeString(ev.Salt)
		hash, err2 := hex.DecodeString(ev.Hash)
		if err1 != nil || err2 != nil || len(hash) != sha256.Size {
			return fmt.Errorf("credential event %d: bad salt or hash", cs.Next)
		}
		if cs.byID[ev.ID] != nil {
			break // an id is created once: a later event reusing it is ignored
		}
		cs.byID[ev.ID] = &Credential{ID: ev.ID, Name: ev.Name, Role: ev.Role, Workspaces: ev.Workspaces,
			CreatedAt: ev.CreatedAt, CreatedBy: ev.CreatedBy, salt: salt, hash: hash}
	case EventCredentialRevoked:
		var ev CredentialRevoked
		if err := json.Unmarshal(data, &ev); err != nil {
			return fmt.Errorf("credential event %d: %w", cs.Next, err)
		}
		if c := cs.byID[ev.ID]; c != nil && c.RevokedAt == nil {
			at, by := ev.RevokedAt, ev.RevokedBy
			c.RevokedAt, c.RevokedBy = &at, &by
		}
	default:
		return fmt.Errorf("credential event %d: unknown type %q", cs.Next, typ)
	}
	cs.Next++
	return nil
}

// Lookup returns the active (not revoked) credential with id.
func (cs *Credentials) Lookup(id string) (*Credential, bool) {
	c := cs.byID[id]
	if c == nil || c.RevokedAt != nil {
		return nil, false
	}
	return c, true
}

// Exists reports whether a credential (active or revoked) has id.
func (cs *Credentials) Exists(id string) bool { return cs.byID[id] != nil }

// Active returns the active credential named name.
func (cs *Credentials) Active(name string) (*Credential, bool) {
	for _, c := range cs.byID {
		if c.Name == name && c.RevokedAt == nil {
			return c, true
		}
	}
	return nil, false
}

// List returns every credential, revoked ones included, oldest first.
func (cs *Credentials) List() []Credential {
	out := make([]Credential, 0, len(cs.byID))
	for _, c := range cs.byID {
		v := *c
		v.salt, v.hash = nil, nil
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b Credential) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return compareStrings(a.ID, b.ID)
	})
	return out
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// credentialName is compiled on first use: the bounded repetition makes a
// large program, and compiling it at package initialisation cost every start
// of every binary that links domain (the sandbox helper included).
var credentialName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)
})

// CheckNewCredential validates a request for a credential against the
// current set: a valid name no active credential holds, a role, and valid
// workspace ids.
func (cs *Credentials) CheckNewCredential(name string, role Role, workspaces []string) error {
	if name == ReservedAdminName {
		return &FieldError{Field: "name", Value: name, Message: "is the configured admin token's name"}
	}
	if !credentialName().MatchString(name) {
		return &FieldError{Field: "name", Value: name, Message: "must be 1-64 characters of letters, digits, '.', '_', '@' or '-'"}
	}
	if _, err := ParseRole(string(role)); err != nil {
		return err
	}
	if len(workspaces) > 64 {
		return &FieldError{Field: "workspaces", Message: "at most 64 workspaces"}
	}
	for i, w := range workspaces {
		if w == "" || len(w) > MaxIDLength {
			return &FieldError{Field: fmt.Sprintf("workspaces[%d]", i), Message: fmt.Sprintf("must be 1-%d characters", MaxIDLength)}
		}
	}
	if _, ok := cs.Active(name); ok {
		return &CredentialExistsError{Name: name}
	}
	return nil
}

// ReservedAdminName is the name of the configured admin token's principal
// (TURNSTILE_TOKEN, --token-file or <data>/token); no named credential may
// take it, so an actor named admin is always that token.
const ReservedAdminName = "admin"

// MaxIDLength bounds every identifier a client sends (workspace, thread,
// turn, tool call and item ids).
const MaxIDLength = 128

// CredentialExistsError reports a name an active credential already holds.
type CredentialExistsError struct{ Name string }

func (e *CredentialExistsError) Error() string {
	return fmt.Sprintf("an active credential is already named %q (revoke it first)", e.Name)
}

// CredentialNotFoundError reports a name or id no active credential holds.
type CredentialNotFoundError struct{ Name string }

func (e *CredentialNotFoundError) Error() string {
	return fmt.Sprintf("no active credential named %q", e.Name)
}
