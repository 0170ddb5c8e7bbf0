package main

import (
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"
)

// lossyWriter hands each write (a log line) to w from a goroutine of its own, keeping at most
// a queue's worth waiting, and drops what comes past that, counting it. A process whose
// stderr is someone else's pipe must not depend on them reading it: an MCP client that never
// read it filled the pipe after ~63 KB, and from then on every log call, and so every answer,
// blocked. Write never blocks and never fails.
type lossyWriter struct {
	lines   chan []byte
	mu      sync.Mutex
	lost    int
	pending int // lines queued and not yet written: Flush waits for 0
}

// newLossyWriter starts the goroutine that writes to w; it lives as long as the process (a
// write to a pipe nobody reads cannot be interrupted).
func newLossyWriter(w io.Writer, queue int) *lossyWriter {
	l := &lossyWriter{lines: make(chan []byte, queue)}
	go l.drain(w)
	return l
}

func (l *lossyWriter) Write(p []byte) (int, error) {
	line := append([]byte(nil), p...)
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case l.lines <- line:
		l.pending++
	default:
		l.lost++
	}
	return len(p), nil
}

// drain writes the queued lines to w; after a failed write (the reader went away) it keeps
// taking lines and throws them away.
func (l *lossyWriter) drain(w io.Writer) {
	broken := false
	for line := range l.lines {
		l.mu.Lock()
		lost := l.lost
		l.lost = 0
		l.mu.Unlock()
		l.write(w, line, lost, &broken)
		l.mu.Lock()
		l.pending--
		l.mu.Unlock()
	}
}

func (l *lossyWriter) write(w io.Writer, line []byte, lost int, broken *bool) {
	if *broken {
		return
	}
	if lost > 0 {
		if _, err := fmt.Fprintf(w, "memdesk: %d log lines were dropped: nothing read this process's stderr\n", lost); err != nil {
			*broken = true
			return
		}
	}
	if _, err := w.Write(line); err != nil {
		*broken = true
	}
}

// Flush waits up to wait for the queued lines to reach w.
func (l *lossyWriter) Flush(wait time.Duration) {
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		l.mu.Lock()
		idle := l.pending == 0
		l.mu.Unlock()
		if idle {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// maxLogValue bounds one logged value: a 900 KB bad argument made a 900 KB log line.
const maxLogValue = 2 << 10

// clipLongValues is a slog ReplaceAttr that cuts string and error values past maxLogValue,
// saying how long they were.
func clipLongValues(_ []string, a slog.Attr) slog.Attr {
	var s string
	switch a.Value.Kind() {
	case slog.KindString:
		s = a.Value.String()
	case slog.KindAny:
		err, ok := a.Value.Any().(error)
		if !ok {
			return a
		}
		s = err.Error()
	default:
		return a
	}
	if len(s) <= maxLogValue {
		return a
	}
	cut := maxLogValue
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return slog.String(a.Key, fmt.Sprintf("%s… (%d bytes in all)", s[:cut], len(s)))
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
