package domain

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// TestRoleTable pins the separation of duties: who may append what.
func TestRoleTable(t *testing.T) {
	appends := []Operation{OpTurnStart, OpTurnDecide, OpTurnExec, OpTurnChangeProfile, OpTurnEnd, OpApprovalRespond, OpCredentialManage}
	for _, tc := range []struct {
		role    Role
		allowed []Operation
	}{
		{RoleRuntime, []Operation{OpTurnStart, OpTurnDecide, OpTurnExec, OpTurnChangeProfile, OpTurnEnd}},
		{RoleApprover, []Operation{OpApprovalRespond}},
		{RoleAuditor, nil},
		{RoleAdmin, appends},
		{"", nil},
		{"root", nil},
	} {
		for _, op := range appends {
			want := false
			for _, a := range tc.allowed {
				want = want || a == op
			}
			if got := tc.role.Allows(op); got != want {
				t.Errorf("%q may %s: %v, want %v", tc.role, op, got, want)
			}
		}
	}
	if !RoleAuditor.Allows(OpTurnHistory) || RoleRuntime.Allows(OpTurnHistory) || RoleRuntime.Allows(OpEventsSubscribe) {
		t.Error("read access differs from the table")
	}
}

// TestAuthorizeScope: a scoped principal reaches its workspaces only, never
// a turn without a workspace; an unscoped one reaches all.
func TestAuthorizeScope(t *testing.T) {
	scoped := Principal{Name: "alice", Role: RoleApprover, Workspaces: []string{"ws1"}}
	if err := scoped.AuthorizeIn(OpApprovalRespond, "ws1"); err != nil {
		t.Fatal(err)
	}
	var fe *ForbiddenError
	for _, ws := range []string{"ws2", ""} {
		if err := scoped.AuthorizeIn(OpApprovalRespond, ws); !errors.As(err, &fe) || fe.WorkspaceID != ws {
			t.Fatalf("ws %q: %v", ws, err)
		}
	}
	if err := scoped.AuthorizeIn(OpTurnStart, "ws1"); !errors.As(err, &fe) || fe.Operation != OpTurnStart {
		t.Fatalf("an approver starting a turn: %v", err)
	}
	if err := (Principal{Name: "a", Role: RoleApprover}).AuthorizeIn(OpApprovalRespond, ""); err != nil {
		t.Fatalf("unscoped: %v", err)
	}
}

// TestActorJSON: actors are stored as {name, role}; events stored before
// roles existed carry a bare string, read as the name.
func TestActorJSON(t *testing.T) {
	b, _ := json.Marshal(Actor{Name: "alice", Role: RoleApprover})
	if string(b) != `{"name":"alice","role":"approver"}` {
		t.Fatalf("encoded %s", b)
	}
	for in, want := range map[string]Actor{`"agent"`: {Name: "agent"}, `{"name":"x","role":"runtime"}`: {Name: "x", Role: RoleRuntime}} {
		var a Actor
		if err := json.Unmarshal([]byte(in), &a); err != nil || a != want {
			t.Fatalf("%s → %+v %v, want %+v", in, a, err, want)
		}
	}
}

// TestCredentialsFold: a created credential matches its secret only; a
// revoked one matches nothing; an unknown event type fails loudly.
func TestCredentialsFold(t *testing.T) {
	var cs Credentials
	salt, secret := []byte("0123456789abcdef"), []byte("s3cret-s3cret-s3cret")
	created, _ := json.Marshal(CredentialCreated{ID: "id1", Name: "alice", Role: RoleApprover, Workspaces: []string{"ws1"},
		Salt: "30313233343536373839616263646566", Hash: hexOf(HashSecret(salt, secret)), CreatedAt: time.Unix(1, 0)})
	if err := cs.Apply(EventCredentialCreated, created); err != nil {
		t.Fatal(err)
	}
	c, ok := cs.Lookup("id1")
	if !ok || !c.Matches(secret) || c.Matches([]byte("s3cret-s3cret-s3creT")) || c.Principal().Workspaces[0] != "ws1" {
		t.Fatalf("lookup %v %+v", ok, c)
	}
	if err := cs.CheckNewCredential("alice", RoleRuntime, nil); err == nil {
		t.Fatal("a second active alice")
	}
	revoked, _ := json.Marshal(CredentialRevoked{ID: "id1", Name: "alice"})
	if err := cs.Apply(EventCredentialRevoked, revoked); err != nil {
		t.Fatal(err)
	}
	if _, ok := cs.Lookup("id1"); ok {
		t.Fatal("a revoked credential still authenticates")
	}
	if err := cs.CheckNewCredential("alice", RoleRuntime, nil); err != nil {
		t.Fatalf("the name of a revoked credential: %v", err)
	}
	if err := cs.Apply("credential.promoted", []byte(`{}`)); err == nil || cs.Next != 2 {
		t.Fatalf("unknown type: %v (next %d)", err, cs.Next)
	}
	for _, bad := range []string{"", "a b", "../x", string(make([]byte, 65))} {
		if err := cs.CheckNewCredential(bad, RoleRuntime, nil); err == nil {
			t.Errorf("name %q accepted", bad)
		}
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// TestCredentialIDReuse: a second creation event reusing an id neither
// replaces the first credential nor revives a revoked one.
func TestCredentialIDReuse(t *testing.T) {
	var cs Credentials
	salt := []byte("0123456789abcdef")
	mk := func(name string, secret string) []byte {
		b, _ := json.Marshal(CredentialCreated{ID: "id1", Name: name, Role: RoleRuntime,
			Salt: "30313233343536373839616263646566", Hash: hexOf(HashSecret(salt, []byte(secret)))})
		return b
	}
	if err := cs.Apply(EventCredentialCreated, mk("first", "secret-one-secret-one")); err != nil {
		t.Fatal(err)
	}
	revoked, _ := json.Marshal(CredentialRevoked{ID: "id1"})
	if err := cs.Apply(EventCredentialRevoked, revoked); err != nil {
		t.Fatal(err)
	}
	if err := cs.Apply(EventCredentialCreated, mk("second", "secret-two-secret-two")); err != nil {
		t.Fatal(err)
	}
	if c, ok := cs.Lookup("id1"); ok {
		t.Fatalf("a reused id revived a revoked credential: %+v", c)
	}
	if !cs.Exists("id1") || cs.Next != 3 {
		t.Fatalf("exists %v next %d", cs.Exists("id1"), cs.Next)
	}
}
