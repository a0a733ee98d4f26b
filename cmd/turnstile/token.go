package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// loadToken returns the bearer token, where it came from, and whether it was
// chosen explicitly (TURNSTILE_TOKEN or --token-file) rather than created.
func loadToken(dataDir, tokenFile string) (token, source string, explicit bool, err error) {
	if t := strings.TrimSpace(os.Getenv("TURNSTILE_TOKEN")); t != "" {
		return t, "from TURNSTILE_TOKEN", true, nil
	}
	if tokenFile != "" {
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return "", "", false, fmt.Errorf("--token-file: %w", err)
		}
		t := strings.TrimSpace(string(b))
		if len(t) < 16 {
			return "", "", false, fmt.Errorf("--token-file %s: the token must be at least 16 characters", tokenFile)
		}
		return t, "from " + tokenFile, true, nil
	}
	path := filepath.Join(dataDir, "token")
	b, err := os.ReadFile(path)
	if err == nil {
		return strings.TrimSpace(string(b)), "in " + path, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", "", false, err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", "", false, err
	}
	t := hex.EncodeToString(raw)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", "", false, err
	}
	if _, err := f.WriteString(t + "\n"); err != nil {
		f.Close()
		return "", "", false, err
	}
	if err := f.Close(); err != nil {
		return "", "", false, err
	}
	return t, "created in " + path + " (mode 0600)", false, nil
}
