package ui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/memdesk/memdesk/engine/config"
)

// writeConfigFile saves a config file with recall.k and the given Ollama host.
func writeConfigFile(t *testing.T, host string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memdesk", "config.toml")
	l, err := config.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for key, value := range map[string]string{"recall.k": "7", "ollama.host": host} {
		if err := l.Set(key, value, config.SourceFile); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Save(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOllamaSettingsSaveToTheFile(t *testing.T) {
	path := writeConfigFile(t, "10.0.0.5:11434")
	h := newHarness(t, Options{ConfigPath: path}, nil).start()
	p := h.u.settings.ollama
	h.waitFor("the file's values", func() bool { return p.loaded })
	if p.host.Text != "10.0.0.5:11434" || p.model.Text != "qwen3-embedding:0.6b" {
		t.Errorf("entries = %q, %q; want the file's host and the default model", p.host.Text, p.model.Text)
	}
	if p.check.Visible() {
		t.Error("Test connection shown without a test func")
	}

	p.host.SetText("http://gpu-box:11434")
	p.model.SetText("nomic-embed-text")
	test.Tap(p.save)
	h.waitFor("the save", func() bool { return p.result.Visible() && !p.busy })
	if want := "Saved. memdesk uses them from its next start."; p.result.Text != want {
		t.Fatalf("result = %q, want %q", p.result.Text, want)
	}
	l, err := config.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Config.Ollama; got.Host != "http://gpu-box:11434" || got.Model != "nomic-embed-text" {
		t.Errorf("file has host %q, model %q after saving", got.Host, got.Model)
	}
	if l.Config.Recall.K != 7 {
		t.Errorf("recall.k = %d after saving, want the file's 7 kept", l.Config.Recall.K)
	}
}

func TestOllamaSettingsRejectABadHost(t *testing.T) {
	path := writeConfigFile(t, "127.0.0.1:11434")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Options{ConfigPath: path}, nil).start()
	p := h.u.settings.ollama
	h.waitFor("the file's values", func() bool { return p.loaded })
	p.host.SetText("not a host")
	test.Tap(p.save)
	h.waitFor("the answer", func() bool { return p.result.Visible() && !p.busy })
	if !strings.HasPrefix(p.result.Text, `Not saved: ollama.host = "not a host"`) || !strings.Contains(p.result.Text, "host:port") {
		t.Errorf("result = %q, want it to name the key, the value and what is accepted", p.result.Text)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Error("a rejected value changed the file")
	}
}

func TestOllamaSettingsWithoutAConfigPath(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	p := h.u.settings.ollama
	if !p.save.Disabled() || !p.host.Disabled() {
		t.Error("without a config path, Save and the entries should be disabled")
	}
}

// recordingTest is an OllamaTestFunc that records what it was asked and answers err.
type recordingTest struct {
	mu    sync.Mutex
	asked []string
	err   error
}

func (r *recordingTest) test(ctx context.Context, host, model string) error {
	r.mu.Lock()
	r.asked = append(r.asked, host+" "+model)
	r.mu.Unlock()
	return r.err
}

func (r *recordingTest) calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.asked...)
}

func TestOllamaTestConnection(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"ok", nil, "Connected: all-minilm at 127.0.0.1:9999 answered."},
		{"refused", errors.New("dial tcp 127.0.0.1:9999: connection refused"),
			"Could not use all-minilm at 127.0.0.1:9999: dial tcp 127.0.0.1:9999: connection refused. Check that Ollama runs there and the model is pulled (ollama pull all-minilm)."},
		{"slow", context.DeadlineExceeded, "No answer from 127.0.0.1:9999 within 15s. Is Ollama running there?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingTest{err: tt.err}
			h := newHarness(t, Options{ConfigPath: writeConfigFile(t, "127.0.0.1:11434"), TestOllama: rec.test}, nil).start()
			p := h.u.settings.ollama
			h.waitFor("the file's values", func() bool { return p.loaded })
			if !p.check.Visible() {
				t.Fatal("Test connection hidden though a test func is set")
			}
			// The test asks about what the entries say, saved or not.
			p.host.SetText("127.0.0.1:9999")
			p.model.SetText("all-minilm")
			test.Tap(p.check)
			h.waitFor("the test's answer", func() bool { return !p.busy })
			if p.result.Text != tt.want {
				t.Errorf("result = %q, want %q", p.result.Text, tt.want)
			}
			if got := rec.calls(); len(got) != 1 || got[0] != "127.0.0.1:9999 all-minilm" {
				t.Errorf("test asked %q, want [127.0.0.1:9999 all-minilm]", got)
			}
		})
	}
}
