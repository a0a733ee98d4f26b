package domain

import "embed"

// sourceFS holds this package's Go files, so that a binary can tell which
// policy code it was built from.
//
//go:embed *.go
var sourceFS embed.FS

// Sources is this package's Go files as built into the binary (tests
// included; see turnstile/sandbox's embedsum.go for how they are identified). The sandbox
// uses them to refuse a separately built helper program that was built from
// other policy code. It needs no initialisation: the turnstile binary's
// early entry reads it before this package is initialised.
func Sources() embed.FS { return sourceFS }
