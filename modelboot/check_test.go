package modelboot

import (
	"errors"
	"net"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Run("ready", func(t *testing.T) {
		srv := newServer(t, tinyWith(nil))
		defer srv.Close()
		b, err := New(fastSettings(srv), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer b.CloseIdleConnections()
		if err := b.Check(t.Context()); err != nil {
			t.Fatalf("Check: %v", err)
		}
		if st := b.State(); st.Phase != PhaseReady || st.Dims != 16 {
			t.Errorf("state after Check = %+v, want ready with 16 dims", st)
		}
		if _, err := b.EmbedQuery(t.Context(), "python version"); err != nil {
			t.Errorf("EmbedQuery after Check: %v", err)
		}
	})
	t.Run("not installed is not pulled", func(t *testing.T) {
		srv := newServer(t)
		defer srv.Close()
		srv.AddPullable(tinyWith(nil))
		b, err := New(fastSettings(srv), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer b.CloseIdleConnections()
		if err := b.Check(t.Context()); !errors.Is(err, ErrModelMissing) {
			t.Errorf("Check = %v, want ErrModelMissing", err)
		}
		if st := b.State(); !st.NotInstalled() {
			t.Errorf("state = %+v, want failed: not installed", st)
		}
		if n := srv.Requests("/api/pull"); n != 0 {
			t.Errorf("Check pulled %d times, want never", n)
		}
	})
	t.Run("offline", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		host := ln.Addr().String()
		ln.Close()
		b, err := New(Settings{Host: host, Model: tinyModel}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer b.CloseIdleConnections()
		if err := b.Check(t.Context()); err == nil {
			t.Fatal("Check of a closed port succeeded")
		}
		if st := b.State(); st.Phase != PhaseOffline {
			t.Errorf("state = %+v, want offline", st)
		}
	})
}
