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

// semanticReadyWait is how long an admin vectors-* command waits for the model.
const semanticReadyWait = 30 * time.Second

// semantic is a running modelboot bootstrap, owned by the command that started it: stop
// cancels it and waits for it.
type semantic struct {
	boot *modelboot.Boot
	host string
	stop func()
}

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
	log := c.log
	if !c.verbose {
		log = slog.New(slog.NewTextHandler(c.err, &slog.HandlerOptions{Level: slog.LevelError}))
	}
	boot, err := modelboot.New(modelboot.Settings{Host: host, Model: model, KeepAlive: c.cfg.Config.Ollama.KeepAlive}, log)
	if err != nil {
		return nil, fmt.Errorf("semantic leg: %w", err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = boot.Run(runCtx) }) // Run returns ctx's error only
	return &semantic{boot: boot, host: host, stop: func() { cancel(); wg.Wait() }}, nil
}

// options fills the engine's semantic options; s may be nil (semantic off).
func (s *semantic) options(o engine.Options) engine.Options {
	if s == nil {
		o.SemanticState = func() string { return "off" }
		return o
	}
	o.Embedder = modelboot.Retrieval{Boot: s.boot}
	o.SemanticState = func() string { return s.boot.State().String() }
	return o
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
	for {
		select {
		case st := <-states:
			if st.Phase == modelboot.PhaseReady {
				return nil
			}
		case <-offlineGrace.C:
			if s.boot.State().Phase == modelboot.PhaseOffline {
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
		return fmt.Errorf("the embedding model is still downloading (%s): run this again when `memdesk stats` shows semantic: ready", st)
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
	path, err := c.dbPath()
	if err != nil {
		stopSem()
		return nil, nil, err
	}
	e, err := engine.Open(ctx, path, sem.options(c.engineOptions()))
	if err != nil {
		stopSem()
		return nil, nil, err
	}
	c.noteNewDatabase(e)
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
	path, err := c.dbPath()
	if err != nil {
		return err
	}
	e, err := engine.Open(ctx, path, sem.options(c.engineOptions()))
	if err != nil {
		return err
	}
	c.noteNewDatabase(e)
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
