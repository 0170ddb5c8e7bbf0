package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/modelboot"
)

// semanticReadyWait is how long admin vectors-fix waits for the model (which may be loading
// from disk, or downloading).
const semanticReadyWait = 30 * time.Second

// cliSemanticBudget is everything a one-shot command (recall, stats, vectors-diagnose,
// remember, kb add) waits for the embedding model: the look at it (version, show, tags and
// one tiny embed, milliseconds from a running Ollama with the model loaded), then the
// model's measurement if none is stored and the query's embedding, or the embedding of what
// the command wrote. A model that must be loaded from disk first, or is slower than that, is
// not worth a short command's wait: the command answers without it and says so, and the
// app or `memdesk mcp` does the slow work in the background.
const cliSemanticBudget = time.Second

// semantic is a modelboot bootstrap owned by the command that made it: running (Run in the
// background; stop cancels it and waits for it), or checked once (Check; stop closes its
// idle connections).
type semantic struct {
	boot  *modelboot.Boot
	host  string
	model string
	// checked: a one-shot Check, no Run; its state words the next step for the user.
	checked bool
	// readyState, when set, words a checked state's "ready" with how much of the database
	// the model's space covers, counted the first time a result asks for the state. A
	// command that never shows it (vectors-diagnose, which counts exactly) never counts.
	readyState func() string
	// checkTook is how much of cliSemanticBudget the look at the model took.
	checkTook time.Duration
	stop      func()
}

// budgetLeft is what is left of a checked command's cliSemanticBudget after the look at the
// model: never nothing, so a zero never reads as "the default".
func (s *semantic) budgetLeft() time.Duration {
	return max(cliSemanticBudget-s.checkTook, time.Millisecond)
}

// ready reports whether the model answered the command's look at it.
func (s *semantic) ready() bool { return s != nil && s.boot.State().Phase == modelboot.PhaseReady }

// startSemantic starts the Ollama bootstrap in the background when the configuration enables
// it; it returns nil otherwise. Only long-lived processes (gui, mcp) and the vectors-* admin
// actions start it: short commands never wait for a model.
func (c *cli) startSemantic(ctx context.Context) (*semantic, error) {
	cfg := c.cfg.Config.Ollama
	if !cfg.Enabled {
		return nil, nil
	}
	return c.runBoot(ctx, cfg.Host, cfg.Model)
}

// runBoot starts a bootstrap for host and model in the background. Reaching the server is
// retried there, and its state is shown where the user looks (status bar, results, stats);
// its warnings go to stderr only with -v, so an absent Ollama does not fill an MCP client's
// log.
func (c *cli) runBoot(ctx context.Context, host, model string) (*semantic, error) {
	boot, err := modelboot.New(modelboot.Settings{Host: host, Model: model, KeepAlive: c.cfg.Config.Ollama.KeepAlive}, c.quietLog())
	if err != nil {
		return nil, fmt.Errorf("semantic leg: %w", err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = boot.Run(runCtx) }) // Run returns ctx's error only
	return &semantic{boot: boot, host: host, model: model, stop: func() { cancel(); wg.Wait() }}, nil
}

// checkSemantic looks once at the model, within cliSemanticBudget, for a command that
// runs once: the semantic leg is there if the model answered, and the state says why not
// otherwise. It returns nil when the configuration disables the leg. It never pulls.
func (c *cli) checkSemantic(ctx context.Context) (*semantic, error) {
	cfg := c.cfg.Config.Ollama
	if !cfg.Enabled {
		return nil, nil
	}
	boot, err := modelboot.New(modelboot.Settings{Host: cfg.Host, Model: cfg.Model, KeepAlive: cfg.KeepAlive}, c.quietLog())
	if err != nil {
		return nil, fmt.Errorf("semantic leg: %w", err)
	}
	start := time.Now()
	checkCtx, cancel := context.WithTimeout(ctx, cliSemanticBudget)
	defer cancel()
	if err := boot.Check(checkCtx); err != nil {
		c.log.Debug("semantic leg not ready for this command", "err", err)
	}
	return &semantic{boot: boot, host: cfg.Host, model: cfg.Model, checked: true, checkTook: time.Since(start),
		stop: boot.CloseIdleConnections}, nil
}

// quietLog is the logger for a bootstrap: its warnings go to stderr only with -v, so an
// absent Ollama does not fill an MCP client's log or a script's output.
func (c *cli) quietLog() *slog.Logger {
	if c.verbose {
		return c.log
	}
	return slog.New(slog.NewTextHandler(c.err, &slog.HandlerOptions{Level: slog.LevelError}))
}

// options fills the engine's semantic options; s may be nil (semantic off).
func (s *semantic) options(o engine.Options) engine.Options {
	if s == nil {
		o.SemanticState = func() string { return "off (ollama.enabled = false in the config)" }
		return o
	}
	o.Embedder = modelboot.Retrieval{Boot: s.boot}
	o.SemanticState = s.state
	if s.checked {
		o.SemanticBudget = s.budgetLeft()
	}
	return o
}

// state is the semantic leg's state for results and stats. A long-lived process reports the
// bootstrap's phase (the app shows it as it changes); a one-shot command, which will not
// wait for it to change, says what the user can do about it.
func (s *semantic) state() string {
	st := s.boot.State()
	if !s.checked {
		return st.String()
	}
	switch {
	case st.Phase == modelboot.PhaseReady && s.readyState != nil:
		return s.readyState()
	case st.Phase == modelboot.PhaseReady:
		return "ready"
	case st.Phase == modelboot.PhaseOffline:
		return fmt.Sprintf("offline: Ollama is not reachable at %s (start it: ollama serve)", s.host)
	case st.NotInstalled():
		return fmt.Sprintf("off: the embedding model %s is not installed in Ollama at %s (run: ollama pull %s; or set ollama.model to a model you have)", s.model, s.host, s.model)
	case st.Phase == modelboot.PhaseFailed:
		return fmt.Sprintf("%s (check the model with: ollama show %s; or set ollama.model)", st, s.model)
	default:
		return fmt.Sprintf("%s: the model did not answer within %s; it may still be loading (run this again in a moment)", st, cliSemanticBudget)
	}
}

// withCheckedEngine opens the engine for a one-shot command that can use the semantic leg
// (recall, stats, vectors-diagnose) after a bounded look at the model, and adds the stale
// vector count to the leg's state when a result shows it: a ready model with vectors missing
// answers only for the rest.
func (c *cli) withCheckedEngine(ctx context.Context, fn func(*engine.Engine) error) error {
	return c.withWritingEngine(ctx, func(e *engine.Engine, sem *semantic) error {
		if sem.ready() {
			sem.readyState = sync.OnceValue(func() string {
				owners, missing, err := e.VectorCoverage(ctx)
				if err != nil || missing == 0 {
					return "ready"
				}
				return fmt.Sprintf("ready, but %d of %d facts and chunks have no vector in this model's space yet and are found only by the other legs (run: memdesk admin vectors-fix --all; the app and memdesk mcp embed them in the background)",
					missing, owners)
			})
		}
		return fn(e)
	})
}

// withWritingEngine opens the engine for a one-shot command after a bounded look at the
// model: a command that writes (remember, edit, kb add) gets sem, so that what it writes can
// be embedded at once (see embedWritten), and withCheckedEngine builds on it for the ones that
// read. sem is nil when the configuration disables the semantic leg.
func (c *cli) withWritingEngine(ctx context.Context, fn func(e *engine.Engine, sem *semantic) error) (err error) {
	sem, err := c.checkSemantic(ctx)
	if err != nil {
		return err
	}
	if sem != nil {
		defer sem.stop()
	}
	e, err := c.openEngineWith(ctx, sem.options(c.engineOptions()))
	if err != nil {
		return err
	}
	defer func() {
		if cerr := e.Close(); err == nil {
			err = cerr
		}
	}()
	return fn(e, sem)
}

// writeVectors is what a one-shot write did about its texts' vectors, in its JSON
// ("vectors") and, when some were left, in a line for a person.
type writeVectors struct {
	engine.WriteEmbedding
	// Note says why some were left and what embeds them.
	Note string `json:"note,omitempty"`
}

// embedWritten embeds what a one-shot command wrote, within what is left of its
// cliSemanticBudget, when the model answered the command's look at it; nil when it did not
// (or the leg is off): the app or `memdesk mcp` embeds it then, in the background.
func (c *cli) embedWritten(ctx context.Context, e *engine.Engine, sem *semantic, w engine.Written) *writeVectors {
	if !sem.ready() || len(w.Facts)+len(w.Documents) == 0 {
		return nil
	}
	embedCtx, cancel := context.WithTimeout(ctx, sem.budgetLeft())
	defer cancel()
	got, err := e.EmbedWritten(embedCtx, w)
	if err != nil {
		c.log.Warn("what was written was not embedded; the app, memdesk mcp or memdesk admin vectors-fix --all embeds it", "err", err)
		return nil
	}
	out := &writeVectors{WriteEmbedding: got}
	if got.Left > 0 {
		out.Note = fmt.Sprintf("%d of %d texts were not embedded within %s (the model answers slower than that); they are found by their words until the app or memdesk mcp embeds them in the background, or run: memdesk admin vectors-fix --all",
			got.Left, got.Left+got.Embedded, cliSemanticBudget)
	}
	return out
}

// waitReady waits up to semanticReadyWait for the model, and explains what to do when it
// does not come up.
func (s *semantic) waitReady(ctx context.Context) error {
	if s == nil {
		return errors.New("the semantic leg is disabled (ollama.enabled = false in the config): enable it and run this again")
	}
	states, unsubscribe := s.boot.Subscribe()
	defer unsubscribe()
	timeout := time.NewTimer(semanticReadyWait)
	defer timeout.Stop()
	// An offline server is reported after a few retries rather than the full wait.
	offlineGrace := time.NewTimer(3 * time.Second)
	defer offlineGrace.Stop()
	graceOver := false
	for {
		select {
		case st := <-states:
			if st.Phase == modelboot.PhaseReady {
				return nil
			}
			if graceOver && (st.Phase == modelboot.PhaseOffline || st.Phase == modelboot.PhaseFailed) {
				return s.notReady()
			}
		case <-offlineGrace.C:
			graceOver = true
			// Offline, or failed (a pull the registry refused, a model that cannot
			// embed), for the first seconds: Run keeps retrying, but not in this command's
			// time.
			if p := s.boot.State().Phase; p == modelboot.PhaseOffline || p == modelboot.PhaseFailed {
				return s.notReady()
			}
		case <-timeout.C:
			return s.notReady()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (s *semantic) notReady() error {
	st := s.boot.State()
	switch st.Phase {
	case modelboot.PhaseOffline:
		return fmt.Errorf("Ollama is not reachable at %s: start it (ollama serve) and run this again", s.host)
	case modelboot.PhasePulling:
		return fmt.Errorf("the embedding model %s is still downloading (%s), and stops when this command does: run `ollama pull %s`, then this again", s.model, st, s.model)
	case modelboot.PhaseFailed:
		return fmt.Errorf("the embedding model %s cannot be used (semantic: %s): check it with `ollama pull %s` or set ollama.model to another embedding model, then run this again", s.model, st, s.model)
	default:
		return fmt.Errorf("the embedding model is not ready after %s (semantic: %s): run this again", semanticReadyWait, st)
	}
}

// openSemanticEngine opens the engine with the semantic leg's bootstrap running. The returned
// close stops the bootstrap after closing the engine's users' work; call it once.
func (c *cli) openSemanticEngine(ctx context.Context) (*engine.Engine, func() error, error) {
	sem, err := c.startSemantic(ctx)
	if err != nil {
		return nil, nil, err
	}
	stopSem := func() {
		if sem != nil {
			sem.stop()
		}
	}
	e, err := c.openEngineWith(ctx, sem.options(c.engineOptions()))
	if err != nil {
		stopSem()
		return nil, nil, err
	}
	closeAll := func() error {
		err := e.Close()
		stopSem()
		return err
	}
	return e, closeAll, nil
}

// withVectorsEngine opens the engine for an admin vectors-* action: it starts the bootstrap,
// waits for the model, runs fn and stops everything.
func (c *cli) withVectorsEngine(ctx context.Context, fn func(*engine.Engine) error) (err error) {
	sem, err := c.startSemantic(ctx)
	if err != nil {
		return err
	}
	if sem != nil {
		defer sem.stop()
	}
	if err := sem.waitReady(ctx); err != nil {
		return err
	}
	e, err := c.openEngineWith(ctx, sem.options(c.engineOptions()))
	if err != nil {
		return err
	}
	defer func() {
		if cerr := e.Close(); err == nil {
			err = cerr
		}
	}()
	return fn(e)
}

// testOllama is the settings page's "test connection": a bootstrap of its own against host
// and model, until the model answers an embedding or the server says why not.
func (c *cli) testOllama(ctx context.Context, host, model string) error {
	s, err := c.runBoot(ctx, host, model)
	if err != nil {
		return err
	}
	defer s.stop()
	return s.waitReady(ctx)
}

// openLongLived opens the engine for a process that stays up (the app, the MCP server): the
// Ollama bootstrap and the engine's background work (entity extractor, sweeps, vector
// catch-up) run for as long as it does, and nothing waits for them. The returned close stops
// the background work, then closes the engine, then stops the bootstrap.
func (c *cli) openLongLived(ctx context.Context) (*engine.Engine, func() error, error) {
	e, closeEngine, err := c.openSemanticEngine(ctx)
	if err != nil {
		return nil, nil, err
	}
	bgCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := e.Run(bgCtx); err != nil && bgCtx.Err() == nil {
			c.log.Warn("background work stopped; recall keeps answering on the legs that are ready", "err", err)
		}
	})
	return e, func() error {
		cancel()
		wg.Wait()
		return closeEngine()
	}, nil
}
