package tests

import "testing"

// profileRuntime starts a server with the profiles file text (serve
// --profiles) and returns it, the runtime principal's client (agent, in
// workspace ws: the credential the agent holds) and a workspace.
func profileRuntime(t *testing.T, text string) (s, runtime *Server, root string) {
	t.Helper()
	s = StartServer(t, "", "--profiles", writeProfiles(t, text))
	return s, roAs(s, roCreate(t, s, "agent", "runtime", "ws")), workspace(t)
}
