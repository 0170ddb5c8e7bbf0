package ui

import (
	"context"
	"errors"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
)

// SyncBackend is what the Sync section of Settings asks of the engine, when the backend can
// sync between devices (*engine.Engine can); a backend without it shows no Sync section.
type SyncBackend interface {
	SyncStatus(ctx context.Context) (engine.SyncStatus, error)
	SyncNow(ctx context.Context) (engine.SyncReport, error)
}

// syncPanel is Settings' Sync section: the same status as `memdesk sync status`, and Sync
// now.
type syncPanel struct {
	t       *tasks
	b       SyncBackend
	status  *widget.Label
	now     *widget.Button
	content fyne.CanvasObject
	// onSynced is told after Sync now changed memories (the lists are stale).
	onSynced func()
}

func newSyncPanel(t *tasks, b SyncBackend) *syncPanel {
	p := &syncPanel{t: t, b: b, status: widget.NewLabel("")}
	p.status.Wrapping = fyne.TextWrapWord
	p.status.Selectable = true
	p.now = widget.NewButtonWithIcon(lang.L("Sync now"), theme.ViewRefreshIcon(), p.syncNow)
	p.content = container.NewVBox(
		container.NewBorder(nil, nil, nil, p.now, heading(lang.L("Sync between devices"))),
		p.status)
	return p
}

// show words a status for the panel.
func (p *syncPanel) show(st engine.SyncStatus, err error) {
	if errors.Is(err, engine.ErrSyncOff) {
		p.status.SetText(lang.L("Not set up. Run memdesk sync init FOLDER with a folder your sync tool (Syncthing, Dropbox) shares between your devices."))
		p.now.Disable()
		return
	}
	if err != nil {
		p.status.SetText(sentence(err))
		return
	}
	p.now.Enable()
	p.status.SetText(syncStatusText(st))
}

func syncStatusText(st engine.SyncStatus) string {
	var b strings.Builder
	b.WriteString(lang.L("This device: {{.Device}} · folder {{.Dir}}", tmpl{"Device": st.Device, "Dir": st.Dir}))
	for _, d := range st.Devices {
		name := d.Device
		if d.This {
			name = lang.L("{{.Device}} (this one)", tmpl{"Device": d.Device})
		}
		b.WriteString("\n" + lang.L("{{.Device}}: changes {{.Changes}}, the last at {{.When}}",
			tmpl{"Device": name, "Changes": grouped(d.Changes), "When": d.LastWrite.Local().Format(time.DateTime)}))
	}
	b.WriteString("\n" + lang.L("Pending: {{.Export}} changes to write to the folder, {{.Apply}} of other devices' logs to read",
		tmpl{"Export": grouped(int(st.PendingExport)), "Apply": byteSize(st.PendingApply)}))
	if n := len(st.Conflicts); n > 0 {
		b.WriteString("\n" + lang.L("Conflicts: {{.Count}}. Edits made on two devices at once are both kept and listed with the contradictions under Memories", tmpl{"Count": n}))
	}
	if n := len(st.Problems); n > 0 {
		first := st.Problems[0]
		b.WriteString("\n" + lang.L("Log lines skipped: {{.Count}}. The first: {{.File}} line {{.Line}}: {{.Reason}}",
			tmpl{"Count": n, "File": first.File, "Line": first.Line, "Reason": first.Reason}))
	}
	return b.String()
}

func (p *syncPanel) syncNow() {
	p.now.Disable()
	p.t.start(func(ctx context.Context) {
		rep, err := p.b.SyncNow(ctx)
		st, serr := p.b.SyncStatus(ctx)
		p.t.do(func() {
			p.now.Enable()
			if err != nil {
				p.status.SetText(sentence(err))
				return
			}
			p.show(st, serr)
			if rep.Applied > 0 && p.onSynced != nil {
				p.onSynced()
			}
		})
	})
}

// lastOtherWrite is when another device last wrote a change this one holds; zero when none.
func lastOtherWrite(st engine.SyncStatus) time.Time {
	var last time.Time
	for _, d := range st.Devices {
		if !d.This && d.LastWrite.After(last) {
			last = d.LastWrite
		}
	}
	return last
}
