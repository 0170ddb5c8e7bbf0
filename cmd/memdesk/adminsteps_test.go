package main

import (
	"testing"

	"github.com/memdesk/memdesk/engine"
)

// TestCLIStepWordsEachKind: the CLI words every next step as its own commands, with --all
// and "again" only where they apply.
func TestCLIStepWordsEachKind(t *testing.T) {
	for _, tc := range []struct {
		action string
		step   engine.AdminStep
		want   string
	}{
		{"entities-sweep", engine.AdminStep{Kind: engine.StepRun, Action: "entities-sweep", All: true, Why: "to finish"},
			"run `memdesk admin entities-sweep --all` again to finish"},
		{"rebuild-index", engine.AdminStep{Kind: engine.StepRun, Action: "entities-sweep", All: true, Why: "to finish"},
			"run `memdesk admin entities-sweep --all` to finish"},
		{"vectors-diagnose", engine.AdminStep{Kind: engine.StepRun, Action: "vectors-fix", Why: "to re-embed and evict"},
			"run `memdesk admin vectors-fix` to re-embed and evict"},
		{"integrity", engine.AdminStep{Kind: engine.StepBackupFirst}, "copy the database file somewhere safe first (`memdesk admin backup`)"},
		{"contradictions", engine.AdminStep{Kind: engine.StepSettle}, "keep the right one with `memdesk supersede OLD NEW`, or keep both with `memdesk dismiss A B`"},
		{"backup", engine.AdminStep{Kind: engine.StepOpenCopy, Path: "/d/m-backup.db"}, "open it with memdesk --db /d/m-backup.db"},
		{"vectors-fix", engine.AdminStep{Kind: engine.StepSeeWhy}, "add -v to see why"},
	} {
		if got := cliStep(tc.action, tc.step); got != tc.want {
			t.Errorf("cliStep(%q, %+v) = %q, want %q", tc.action, tc.step, got, tc.want)
		}
	}
}
