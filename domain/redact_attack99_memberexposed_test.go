package domain

import (
	"strings"
	"testing"
)

// TestAttack99_MemberShownWhereEnvironReadByName (ninety-ninth review, on
// 9b1b47f, low-medium: a credential recorded and shown, in the forms the
// README promises to hide). 9b1b47f gave the member patterns' clip
// `exposed` (to show `export "X_TOKEN"="rm"; $X_TOKEN`'s program). But
// exposedValue is true for EVERY secret-named value when the text reads
// variables by a name it holds (exposedAll: os.environ, process.env,
// eval, printenv, declare -n, …): right for a shell variable, which such a
// program can read by its name, meaningless for a JSON, YAML, TOML or
// Python member, which is no variable at all. So a member is shown
// whenever the same command touches the environment by name, which is
// what scripts do:
//
//	python3 -c "import os, requests; requests.post(URL, json={'username': os.environ['USER'], 'password': '…'})"
//	cat > config.yaml <<'EOF' … password: "…" … EOF
//	eval "$(direnv export bash)"
//
// The same without os.environ or eval is hidden (controls; the second was
// hidden before 9b1b47f with the eval too).
//
// Root cause: domain/redact.go redactGated: member and memberBare get
// clip{exposed: exposed}; exposedValue (redact_exposed.go) answers
// exposed[exposedAll] for any name.
//
// Fix: for the member patterns consult only exposed[name] (a variable of
// that very name expanded where it decides what runs), never exposedAll;
// or give them exposed only when the member is a shell assignment
// (`"NAME"=value` as one word, its separator '=').
func TestAttack99_MemberShownWhereEnvironReadByName(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	const tok = "Zq8xLmN3pQ7rT2vW"
	for _, s := range []string{
		`python3 -c "import os, requests; r = requests.post('https://api.example/v1/login', json={'username': 'bot', 'password': '` + tok + `'}); print(r.status_code)"`,
		"cat > config.yaml <<'EOF'\ndatabase:\n  host: db.internal\n  password: \"" + tok + "\"\nEOF\nexport APP_ENV=prod",
		"cat > deploy.py <<'EOF'\nCONFIG = {\n    \"api_key\": \"" + tok + "\",\n    \"region\": \"eu\",\n}\nEOF",
	} {
		if got := redactText(s, shell); strings.Contains(got, tok) || !strings.Contains(got, "[redacted]") {
			t.Fatalf("control: %s\nshown as %s", s, got)
		}
	}
	for _, s := range []string{
		`python3 -c "import os, requests; r = requests.post('https://api.example/v1/login', json={'username': os.environ['USER'], 'password': '` + tok + `'}); print(r.status_code)"`,
		"cat > config.yaml <<'EOF'\ndatabase:\n  host: db.internal\n  password: \"" + tok + "\"\nEOF\nexport APP_ENV=prod; eval \"$(direnv export bash)\"",
		"cat > deploy.py <<'EOF'\nimport os\nCONFIG = {\n    \"api_key\": \"" + tok + "\",\n    \"region\": os.environ.get(\"REGION\", \"eu\"),\n}\nEOF",
		`node -e "const r = await fetch('https://api.example/v1/me', {headers: {'X-Api-Key': '` + tok + `', 'X-User': process.env.USER}})"`,
	} {
		if got := redactText(s, shell); strings.Contains(got, tok) {
			t.Errorf("shell: %s\nshown as %s", s, got)
		}
	}
}
