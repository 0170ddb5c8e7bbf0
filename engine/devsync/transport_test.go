package devsync_test

import (
	"bytes"
	"context"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// copyTransport is a file sync engine in miniature: it copies each file to the side where
// it is shorter or older, through a temporary file and a rename, as Syncthing does. Partial
// copies only part of what was appended, often cutting a line in two: the torn tails a
// reader meets while a sync engine is at work.
type copyTransport struct {
	a, b string
	mu   sync.Mutex
	rnd  *rand.Rand
}

func newCopyTransport(t testing.TB, seed uint64) *copyTransport {
	return &copyTransport{a: t.TempDir(), b: t.TempDir(), rnd: rand.New(rand.NewPCG(seed, 7))}
}

func (c *copyTransport) Folders() (string, string) { return c.a, c.b }

func (c *copyTransport) Settle(ctx context.Context) error { return c.exchange(false) }

func (c *copyTransport) Partial(ctx context.Context) error { return c.exchange(true) }

func (c *copyTransport) exchange(partial bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	files := map[string]bool{}
	for _, root := range []string{c.a, c.b} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			files[rel] = true
			return nil
		})
		if err != nil {
			return err
		}
	}
	for rel := range files {
		pa, pb := filepath.Join(c.a, rel), filepath.Join(c.b, rel)
		da, _ := os.ReadFile(pa)
		db, _ := os.ReadFile(pb)
		if bytes.Equal(da, db) {
			continue
		}
		src, dst, from, to := da, db, pa, pb
		if strings.HasSuffix(rel, ".jsonl") {
			if len(db) > len(da) {
				src, dst, from, to = db, da, pb, pa
			}
		} else if fa, fb := stat(pa), stat(pb); fb != nil && (fa == nil || fb.ModTime().After(fa.ModTime())) {
			src, dst, from, to = db, da, pb, pa
		}
		_ = from
		data := src
		if partial && strings.HasSuffix(rel, ".jsonl") && len(src) > len(dst)+1 && c.rnd.IntN(2) == 0 {
			data = src[:len(dst)+1+c.rnd.IntN(len(src)-len(dst)-1)]
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			return err
		}
		tmp := filepath.Join(filepath.Dir(to), ".copy-"+filepath.Base(to))
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			return err
		}
		if err := os.Rename(tmp, to); err != nil {
			return err
		}
	}
	return nil
}

func stat(p string) fs.FileInfo {
	fi, err := os.Stat(p)
	if err != nil {
		return nil
	}
	return fi
}
