package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"turnstile/domain"
	"turnstile/domain/eventstore"
)

// TokenPrefix starts every named credential's token: "tsk_<id>_<secret>".
// The id finds the credential; only the secret's salted hash is stored.
const TokenPrefix = "tsk_"

// CredentialStore keeps the named credentials, folded from the credential
// stream of the event store. Before every authentication it reads the
// stream's tail (usually nothing), so a revocation appended by any instance
// sharing the store is in force on the next request here: one short read
// per request is the price of revocation at once.
type CredentialStore struct {
	store eventstore.Store
	now   func() time.Time

	mu    sync.Mutex // guards creds
	creds domain.Credentials
}

// NewCredentialStore returns a store over st's credential stream.
func NewCredentialStore(st eventstore.Store) *CredentialStore {
	return &CredentialStore{store: st, now: time.Now}
}

// Refresh applies the credential events appended since the last refresh.
func (cs *CredentialStore) Refresh(ctx context.Context) error {
	cs.mu.Lock()
	from := cs.creds.Next
	cs.mu.Unlock()
	recs, err := cs.store.ReadStream(ctx, domain.CredentialStream, from, 0)
	if err != nil {
		return err
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for i := range recs {
		if recs[i].Revision < cs.creds.Next {
			continue // another request applied it meanwhile
		}
		if recs[i].Revision != cs.creds.Next {
			return fmt.Errorf("credential stream: revision %d after %d", recs[i].Revision, cs.creds.Next)
		}
		if err := cs.creds.Apply(recs[i].Type, recs[i].Data); err != nil {
			return err
		}
	}
	return nil
}

// Authenticate returns the principal of a named credential's token, or
// false when the token is not one or is unknown or revoked.
func (cs *CredentialStore) Authenticate(ctx context.Context, token string) (domain.Principal, bool, error) {
	rest, ok := strings.CutPrefix(token, TokenPrefix)
	if !ok {
		return domain.Principal{}, false, nil
	}
	id, secret, ok := strings.Cut(rest, "_")
	if !ok {
		return domain.Principal{}, false, nil
	}
	if err := cs.Refresh(ctx); err != nil {
		return domain.Principal{}, false, err
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.creds.Lookup(id)
	if !ok || !c.Matches([]byte(secret)) {
		return domain.Principal{}, false, nil
	}
	return c.Principal(), true, nil
}

// Active reports whether by is still a principal a named credential
// authenticates: one named by.Name with by.Role and not revoked, read up
// to date.
func (cs *CredentialStore) Active(ctx context.Context, by domain.Actor) (bool, error) {
	if err := cs.Refresh(ctx); err != nil {
		return false, err
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.creds.Active(by.Name)
	return ok && c.Role == by.Role, nil
}

// ActiveID reports whether the credential with id is active and is by's
// (its name and role), read up to date.
func (cs *CredentialStore) ActiveID(ctx context.Context, id string, by domain.Actor) (bool, error) {
	if err := cs.Refresh(ctx); err != nil {
		return false, err
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.creds.Lookup(id)
	return ok && c.Name == by.Name && c.Role == by.Role, nil
}

// EgressValid is the egress proxy's check that the principal a connection
// is made for still holds a credential (egress.Proxy.Valid): the
// configured admin token's (BootstrapName), while one is configured, or an
// active named credential. A revoked one, or a store that cannot say, is
// an error: its proxy URL ends with it, as its requests do.
//
// A URL given on a named credential names its id (credID): it lapses with
// that credential, even when a new credential takes the name again (a
// token rotated by revoking it and creating its name anew).
func EgressValid(cs *CredentialStore, adminToken string) func(context.Context, domain.Actor, string) error {
	return func(ctx context.Context, by domain.Actor, credID string) error {
		if credID == "" && by.Name == BootstrapName && by.Role == domain.RoleAdmin && adminToken != "" {
			return nil
		}
		var ok bool
		var err error
		if credID != "" {
			ok, err = cs.ActiveID(ctx, credID, by)
		} else {
			ok, err = cs.Active(ctx, by)
		}
		if err != nil {
			return fmt.Errorf("the credential of %s cannot be checked: %w", by, err)
		}
		if !ok {
			return fmt.Errorf("the credential of %s was revoked: its proxy URL ended with it", by)
		}
		return nil
	}
}

// NewCredential is what a created credential answers: its token is shown
// once and stored nowhere.
type NewCredential struct {
	domain.Credential
	Token string `json:"token"`
}

// Create appends a new credential and returns its token.
func (cs *CredentialStore) Create(ctx context.Context, by domain.Actor, name string, role domain.Role, workspaces []string) (*NewCredential, error) {
	secret, salt := make([]byte, 32), make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	secretHex := hex.EncodeToString(secret)
	id := strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	ev := domain.CredentialCreated{ID: id, Name: name, Role: role, Workspaces: workspaces,
		Salt: hex.EncodeToString(salt), Hash: hex.EncodeToString(domain.HashSecret(salt, []byte(secretHex))),
		CreatedAt: cs.now().UTC(), CreatedBy: by}
	err := cs.appendChecked(ctx, domain.EventCredentialCreated, ev, func(c *domain.Credentials) error {
		if c.Exists(id) {
			return errors.New("credentials: a fresh id collided with an existing one; retry")
		}
		return c.CheckNewCredential(name, role, workspaces)
	})
	if err != nil {
		return nil, err
	}
	out := &NewCredential{Token: TokenPrefix + id + "_" + secretHex}
	out.Credential = domain.Credential{ID: id, Name: name, Role: role, Workspaces: workspaces, CreatedAt: ev.CreatedAt, CreatedBy: by}
	return out, nil
}

// Revoke appends the revocation of the active credential named (or with
// the id) name.
func (cs *CredentialStore) Revoke(ctx context.Context, by domain.Actor, name string, may func(domain.Credential) error) (domain.Credential, error) {
	var ev domain.CredentialRevoked
	var out domain.Credential
	err := cs.appendChecked(ctx, domain.EventCredentialRevoked, &ev, func(c *domain.Credentials) error {
		cred, ok := c.Active(name)
		if !ok {
			if cred, ok = c.Lookup(name); !ok {
				return &domain.CredentialNotFoundError{Name: name}
			}
		}
		if may != nil {
			if err := may(domain.Credential{ID: cred.ID, Name: cred.Name, Role: cred.Role, Workspaces: cred.Workspaces}); err != nil {
				return err
			}
		}
		ev = domain.CredentialRevoked{ID: cred.ID, Name: cred.Name, RevokedAt: cs.now().UTC(), RevokedBy: by}
		out = domain.Credential{ID: cred.ID, Name: cred.Name, Role: cred.Role, Workspaces: cred.Workspaces, CreatedAt: cred.CreatedAt, CreatedBy: cred.CreatedBy}
		return nil
	})
	if err != nil {
		return domain.Credential{}, err
	}
	out.RevokedAt, out.RevokedBy = &ev.RevokedAt, &by
	return out, nil
}

// List returns every credential, revoked ones included.
func (cs *CredentialStore) List(ctx context.Context) ([]domain.Credential, error) {
	if err := cs.Refresh(ctx); err != nil {
		return nil, err
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.creds.List(), nil
}

// appendChecked checks the current set, then appends at the version it
// checked; another instance's append in between is re-read and re-checked.
func (cs *CredentialStore) appendChecked(ctx context.Context, typ string, payload any, check func(*domain.Credentials) error) error {
	for range 16 {
		if err := cs.Refresh(ctx); err != nil {
			return err
		}
		cs.mu.Lock()
		err := check(&cs.creds)
		next := cs.creds.Next
		cs.mu.Unlock()
		if err != nil {
			return err
		}
		data, err := json.Marshal(payload)
		if err != nil {
			return err
		}
		expected := eventstore.NoStream()
		if next > 0 {
			expected = eventstore.Exactly(next - 1)
		}
		meta, _ := json.Marshal(map[string]any{"type": typ, "schema_version": 1})
		_, err = cs.store.Append(ctx, domain.CredentialStream, expected, []eventstore.EventData{{ID: uuid.New(), Type: typ, Data: data, Metadata: meta}})
		var wrong *eventstore.WrongExpectedVersionError
		if errors.As(err, &wrong) {
			continue
		}
		if err != nil {
			return err
		}
		return cs.Refresh(ctx)
	}
	return errors.New("credentials: too many concurrent changes; retry")
}

// CreateCredentialRequest is the body of POST /v1/credentials.
type CreateCredentialRequest struct {
	Name       string      `json:"name"`
	Role       domain.Role `json:"role"`
	Workspaces []string    `json:"workspaces,omitempty"`
}

func (s *Server) createCredential(w http.ResponseWriter, r *http.Request) {
	var req CreateCredentialRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, err)
		return
	}
	if req.Role == "" {
		writeError(w, &domain.FieldError{Field: "role", Message: "required: runtime, approver, auditor or admin"})
		return
	}
	p := principalOf(r)
	if err := p.AuthorizeOver(domain.OpCredentialManage, req.Workspaces); err != nil {
		writeError(w, err)
		return
	}
	out, err := s.creds.Create(r.Context(), p.Actor(), req.Name, req.Role, req.Workspaces)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) listCredentials(w http.ResponseWriter, r *http.Request) {
	list, err := s.creds.List(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	// A principal limited to some workspaces sees the credentials within
	// them only.
	p := principalOf(r)
	list = slices.DeleteFunc(list, func(c domain.Credential) bool {
		return p.AuthorizeOver(domain.OpCredentialManage, c.Workspaces) != nil
	})
	writeJSON(w, http.StatusOK, map[string]any{"credentials": list})
}

func (s *Server) revokeCredential(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r)
	name := chi.URLParam(r, "name")
	c, err := s.creds.Revoke(r.Context(), p.Actor(), name, func(c domain.Credential) error {
		// Outside the principal's scope a credential is not found, as
		// the list does not show it.
		if p.AuthorizeOver(domain.OpCredentialManage, c.Workspaces) != nil {
			return &domain.CredentialNotFoundError{Name: name}
		}
		return nil
	})
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}
