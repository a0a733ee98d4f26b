// Package ui holds the approval console's static assets, embedded in the
// binary: no build step, no framework, nothing fetched from elsewhere.
package ui

import "embed"

// Assets are the console's files (index.html, app.js, app.css).
//
//go:embed index.html app.js app.css
var Assets embed.FS
