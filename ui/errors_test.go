package ui

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/memdesk/memdesk/engine"
)

func TestSentence(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"bad request", fmt.Errorf("%w: the query is empty; type a word or two to search for", engine.ErrBadRequest),
			"The query is empty; type a word or two to search for."},
		{"invalid text", fmt.Errorf("%w: the text is empty", engine.ErrInvalidText), "The text is empty."},
		{"duplicate", fmt.Errorf("%w: fact 3 already says the same thing; forget one of them first", engine.ErrDuplicate),
			"Fact 3 already says the same thing; forget one of them first."},
		{"not found", fmt.Errorf("fact 9: %w", engine.ErrNotFound), "That item no longer exists; the list has been refreshed."},
		{"plain cancel", context.Canceled, "Cancelled."},
		{"import cancel keeps the engine's count",
			fmt.Errorf("import cancelled after 2 of 5 files (finished files are kept): %w", context.Canceled),
			"Import cancelled after 2 of 5 files (finished files are kept)."},
		{"damaged index names the window's repair, not the CLI's",
			fmt.Errorf("%w (database disk image is malformed): run `memdesk admin rebuild-index` to rebuild it", engine.ErrDamagedIndex),
			"The search index is damaged; nothing you stored is lost. Settings › Repairs › Rebuild search makes it anew from your stored text."},
		{"other", errors.New("disk I/O error"), "Something went wrong: disk I/O error."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sentence(tt.err); got != tt.want {
				t.Errorf("sentence(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}
