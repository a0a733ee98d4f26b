package domain

import (
	"strings"
	"testing"
)

// TestAttack96_SecretReferenceHidden (ninety-sixth review, on 8e5dca9,
// low). The new member pattern hides the quoted value of every JSON member
// whose name holds "secret", "token"…, and many such members name which
// secret, not a secret: Kubernetes' `"secretName"` (which Secret a pod
// mounts), AWS's `"SecretId"` (which secret get-secret-value returns).
// Before 8e5dca9 both were shown; now the person approving
//
//	kubectl patch deployment web -p '{…"secret":{"secretName":"cluster-admin-token"}…}'
//
// sees `"secretName":"[redacted]"`: not that the agent's deployment gets
// the cluster-admin token mounted, only that it gets some secret. The
// option and assignment forms (`--secret-id prod-db-admin`,
// `--secret=prod-db-admin`) were hidden before (the same root cause).
//
// Root cause: domain/redact_inview.go refName: a name that says its value
// is a reference (…Name, …Id of a secrets manager, …Ref, …Arn) is read
// as the secret itself.
//
// Fix: refNameSuffixes gains "name", "ref", "arn", and a camel-case "Id"
// or an option's "-id" (not Vault's secret_id, a credential). Left, a
// known limit: gcloud's --secret=NAME, which reads as any tool's secret.
func TestAttack96_SecretReferenceHidden(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	// Controls: the same names written as a command's words are shown;
	// a real credential in the same JSON is hidden.
	for _, c := range []struct{ in, want string }{
		{`kubectl get secret cluster-admin-token -o jsonpath='{.data.token}'`, "cluster-admin-token"},
		{`az keyvault secret show --vault-name kv --name prod-db-admin`, "prod-db-admin"},
	} {
		if got := redactText(c.in, shell); !strings.Contains(got, c.want) {
			t.Fatalf("control: %s\nshown as %s, want %q in view", c.in, got, c.want)
		}
	}
	if got := redactText(`aws secretsmanager put-secret-value --cli-input-json '{"SecretId": "x", "SecretString": "Zq8xLmN3pQ7rT2vW"}'`, shell); strings.Contains(got, "Zq8xLmN3pQ7rT2vW") {
		t.Fatalf("control: credential shown: %s", got)
	}
	for _, c := range []struct{ in, want string }{
		{`kubectl patch deployment web -p '{"spec":{"template":{"spec":{"volumes":[{"name":"creds","secret":{"secretName":"cluster-admin-token"}}]}}}}'`, "cluster-admin-token"},
		{`aws secretsmanager get-secret-value --cli-input-json '{"SecretId": "prod-db-admin"}'`, "prod-db-admin"},
		{`aws secretsmanager get-secret-value --secret-id prod-db-admin --query SecretString --output text`, "prod-db-admin"},
		{`gcloud secrets versions access latest --secret-name prod-db-admin`, "prod-db-admin"},
		{`kubectl create -f - <<EOF` + "\n" + `  tokenRef: prod-db-admin` + "\n" + `EOF`, "prod-db-admin"},
	} {
		if got := redactText(c.in, shell); !strings.Contains(got, c.want) {
			t.Errorf("shell: %s\nshown as %s, want %q in view", c.in, got, c.want)
		}
	}
	// Controls: Vault's secret_id is a credential, and so is a value
	// whose name is the secret's alone.
	for _, in := range []string{
		`vault write auth/approle/login role_id=r secret_id=Zq8xLmN3pQ7rT2vW`,
		`curl -d '{"client_secret": "Zq8xLmN3pQ7rT2vW"}' https://id.example/token`,
	} {
		if got := redactText(in, shell); strings.Contains(got, "Zq8xLmN3pQ7rT2vW") {
			t.Errorf("control: credential shown: %s", got)
		}
	}
}
