package modelboot_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/memdesk/memdesk/modelboot"
	"github.com/memdesk/memdesk/modelboot/ollamatest"
)

func Example() {
	srv, err := ollamatest.NewServer(ollamatest.Model{Name: "bge-m3", Dims: 1024, ContextLength: 8192, Pooling: "cls"})
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	boot, err := modelboot.New(modelboot.Settings{Host: srv.Host(), Model: "bge-m3"}, slog.New(slog.DiscardHandler))
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- boot.Run(ctx) }() // the owner runs it...
	defer func() { cancel(); <-done }()   // ...and waits for it

	states, unsubscribe := boot.Subscribe()
	defer unsubscribe()
	for st := range states {
		if st.Phase == modelboot.PhaseReady || st.Phase == modelboot.PhaseFailed {
			fmt.Println("semantic:", st)
			break
		}
	}
	vecs, err := boot.Embed(ctx, []string{"what does my manager like", "老王喜欢简约风格"})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(vecs), "vectors of", len(vecs[0]), "dims")
	fmt.Println(boot.Representation().Pooling, boot.Representation().Normalization, boot.Representation().InputWindow)
	// Output:
	// semantic: ready
	// 2 vectors of 1024 dims
	// cls l2 8192
}
