package esdbstore

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
	"turnstile/internal/esdbtest"
)

// selfSigned returns a TLS certificate for 127.0.0.1 and the path of its PEM
// file, to be used as the client's tlsCAFile.
func selfSigned(t *testing.T) (tls.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "esdbtest"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, path
}

func TestOpenParsesConnectionStrings(t *testing.T) {
	_, ca := selfSigned(t)
	cases := []struct {
		conn  string
		check func(s *Store) bool
	}{
		{"esdb://localhost:2113?tls=false", func(s *Store) bool {
			return s.cfg.Address == "localhost:2113" && s.cfg.DisableTLS && len(s.cfg.GossipSeeds) == 0
		}},
		{"esdb://a:2113,b:2113,c:2113?tls=false", func(s *Store) bool {
			return len(s.cfg.GossipSeeds) == 3 && !s.cfg.DnsDiscover
		}},
		{"esdb+discover://cluster.example.com:2113", func(s *Store) bool {
			return s.cfg.DnsDiscover && !s.cfg.DisableTLS
		}},
		{"esdb://node:2113?tls=true&tlsVerifyCert=false", func(s *Store) bool {
			return !s.cfg.DisableTLS && s.cfg.SkipCertificateVerification
		}},
		{"esdb://node:2113?tls=true&tlsCAFile=" + ca, func(s *Store) bool {
			return !s.cfg.DisableTLS && s.cfg.RootCAs != nil
		}},
		{"esdb://node:2113?tls=false&gossipTimeout=7&maxDiscoverAttempts=9", func(s *Store) bool {
			return s.cfg.GossipTimeout == 7 && s.cfg.MaxDiscoverAttempts == 9
		}},
		{"esdb://node:2113?tls=false", func(s *Store) bool {
			return s.cfg.GossipTimeout == 5 && s.cfg.MaxDiscoverAttempts == 3 // bounded by the default Timeout
		}},
		{"kurrentdb://node:2113?tls=false", func(s *Store) bool {
			return s.cfg.Address == "node:2113" && s.cfg.DisableTLS
		}},
		{"KurrentDB+discover://cluster.example.com:2113", func(s *Store) bool {
			return s.cfg.DnsDiscover
		}},
	}
	for _, tc := range cases {
		s, err := Open(tc.conn, Options{})
		if err != nil {
			t.Errorf("Open(%q): %v", tc.conn, err)
			continue
		}
		if !tc.check(s) {
			t.Errorf("Open(%q): configuration %+v", tc.conn, s.cfg)
		}
		_ = s.Close()
	}
	for _, bad := range []string{
		"http://localhost:2113",
		"esdb://",
		"esdb://node:2113?tls=maybe",
		"esdb://node:2113?tls=true&tlsCAFile=" + filepath.Join(t.TempDir(), "missing.pem"),
		"mongodb://node:2113",
	} {
		if s, err := Open(bad, Options{}); err == nil {
			_ = s.Close()
			t.Errorf("Open(%q): no error", bad)
		}
	}
}

// freeAddr returns a loopback address nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// roundTrip appends to a fresh stream and reads it back through s.
func roundTrip(t *testing.T, s *Store) {
	t.Helper()
	stream := "turn-" + uuid.NewString()
	evs := newEvents(2, "rt")
	res := mustAppend(t, s, stream, eventstore.NoStream(), evs)
	got, err := s.ReadStream(testCtx(t), stream, 0, 0)
	if err != nil || len(got) != 2 || got[1].ID != evs[1].ID || got[1].Position != res.Position {
		t.Fatalf("read back %d events, %v", len(got), err)
	}
	if err := s.Ping(testCtx(t)); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

func TestClusterConnectionStrings(t *testing.T) {
	srv := esdbtest.Start(t)
	t.Run("GossipSeeds", func(t *testing.T) {
		// One seed is dead; the client asks the live one for gossip and
		// connects to the leader it names.
		roundTrip(t, openStore(t, "esdb://"+freeAddr(t)+","+srv.Addr()+"?tls=false", Options{}))
	})
	t.Run("Discover", func(t *testing.T) {
		roundTrip(t, openStore(t, "esdb+discover://"+srv.Addr()+"?tls=false", Options{}))
	})
}

func TestTLS(t *testing.T) {
	cert, ca := selfSigned(t)
	srv := esdbtest.Start(t, esdbtest.WithTLS(&tls.Config{Certificates: []tls.Certificate{cert}}))
	t.Run("CAFile", func(t *testing.T) {
		roundTrip(t, openStore(t, srv.ConnString()+"&tlsCAFile="+ca, Options{}))
	})
	t.Run("NoVerify", func(t *testing.T) {
		roundTrip(t, openStore(t, srv.ConnString()+"&tlsVerifyCert=false", Options{}))
	})
	t.Run("UnknownCA", func(t *testing.T) {
		// The system roots do not know this certificate: the handshake
		// fails, and the store reports it unavailable (not a hang).
		s := openStore(t, srv.ConnString(), Options{Timeout: shortTimeout})
		err := s.Ping(testCtx(t))
		if err == nil || !strings.Contains(err.Error(), "unavailable") {
			t.Fatalf("Ping with an unknown CA: %v", err)
		}
	})
	t.Run("PlainClient", func(t *testing.T) {
		s := openStore(t, strings.Replace(srv.ConnString(), "tls=true", "tls=false", 1), Options{Timeout: shortTimeout})
		if err := s.Ping(testCtx(t)); err == nil {
			t.Fatal("Ping without TLS against a TLS server: no error")
		}
	})
}
