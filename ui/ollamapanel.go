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

	"github.com/memdesk/memdesk/engine/config"
)

// OllamaTestFunc checks that the Ollama server at host answers and has model, e.g. by
// embedding a word. It runs on a work goroutine and must honour ctx.
type OllamaTestFunc func(ctx context.Context, host, model string) error

// ollamaTestTimeout bounds a connection test, so a host that swallows packets does not
// leave the button spinning.
const ollamaTestTimeout = 15 * time.Second

// ollamaPanel edits the Ollama host and model in the configuration file and tests them.
// The file is read and written on work goroutines: it is small, but a home directory on a
// network share is not.
type ollamaPanel struct {
	t    *tasks
	path string
	test OllamaTestFunc

	host    *widget.Entry
	model   *widget.Entry
	save    *widget.Button
	check   *widget.Button
	result  *widget.Label
	content fyne.CanvasObject

	// loaded is true once the file has been read into the entries; saving before then
	// would write the defaults over the user's values.
	loaded bool
	busy   bool // a save or test runs
}

func newOllamaPanel(t *tasks, path string, test OllamaTestFunc) *ollamaPanel {
	p := &ollamaPanel{t: t, path: path, test: test}
	p.host = widget.NewEntry()
	p.host.SetPlaceHolder(config.Default().Ollama.Host)
	p.model = widget.NewEntry()
	p.model.SetPlaceHolder(config.Default().Ollama.Model)
	p.save = widget.NewButtonWithIcon(lang.L("Save"), theme.DocumentSaveIcon(), p.saveSettings)
	p.check = widget.NewButtonWithIcon(lang.L("Test connection"), theme.ConfirmIcon(), p.testConnection)
	if test == nil {
		p.check.Hide()
	}
	p.result = widget.NewLabel("")
	p.result.Wrapping = fyne.TextWrapWord
	p.result.Hide()

	help := lang.L("Saved to {{.Path}}. memdesk uses a new host or model from its next start; OLLAMA_HOST and MEMDESK_OLLAMA_* in the environment override the file.", tmpl{"Path": path})
	if path == "" {
		help = lang.L("No configuration file was given, so these settings cannot be saved here.")
		p.save.Disable()
		p.host.Disable()
		p.model.Disable()
	}
	helpLabel := hint(help)
	helpLabel.Wrapping = fyne.TextWrapWord
	form := widget.NewForm(widget.NewFormItem(lang.L("Host"), p.host), widget.NewFormItem(lang.L("Model"), p.model))
	p.content = container.NewVBox(form, helpLabel, container.NewHBox(p.save, p.check), p.result)
	return p
}

// load reads the file's host and model into the entries. Environment overrides are not
// read: the panel edits the file, and cmd alone reads the environment.
func (p *ollamaPanel) load() {
	if p.path == "" {
		return
	}
	p.save.Disable()
	path := p.path
	p.t.start(func(context.Context) {
		l, err := config.Load(path, nil)
		p.t.do(func() {
			if err != nil {
				p.show(widget.DangerImportance, lang.L("Could not read the settings: {{.Error}}", tmpl{"Error": configSentence(err)}))
				return
			}
			p.host.SetText(l.Config.Ollama.Host)
			p.model.SetText(l.Config.Ollama.Model)
			p.loaded = true
			if !p.busy {
				p.save.Enable()
			}
		})
	})
}

// saveSettings writes host and model through a fresh load of the file, so keys changed
// meanwhile by `memdesk config` survive.
func (p *ollamaPanel) saveSettings() {
	if p.busy || !p.loaded || p.path == "" {
		return
	}
	host, model, path := strings.TrimSpace(p.host.Text), strings.TrimSpace(p.model.Text), p.path
	p.setBusy(true)
	p.t.start(func(context.Context) {
		err := saveOllama(path, host, model)
		p.t.do(func() {
			p.setBusy(false)
			if err != nil {
				p.show(widget.DangerImportance, lang.L("Not saved: {{.Error}}", tmpl{"Error": configSentence(err)}))
				return
			}
			p.host.SetText(host)
			p.model.SetText(model)
			p.show(widget.SuccessImportance, lang.L("Saved. memdesk uses them from its next start."))
		})
	})
}

func saveOllama(path, host, model string) error {
	l, err := config.Load(path, nil)
	if err != nil {
		return err
	}
	if err := l.Set("ollama.host", host, config.SourceFile); err != nil {
		return err
	}
	if err := l.Set("ollama.model", model, config.SourceFile); err != nil {
		return err
	}
	return l.Save()
}

// testConnection asks the injected test about the entries' host and model, saved or not.
func (p *ollamaPanel) testConnection() {
	if p.busy || p.test == nil {
		return
	}
	host, model := strings.TrimSpace(p.host.Text), strings.TrimSpace(p.model.Text)
	if host == "" {
		host = config.Default().Ollama.Host
	}
	if model == "" {
		model = config.Default().Ollama.Model
	}
	p.setBusy(true)
	p.show(widget.MediumImportance, lang.L("Asking {{.Host}} for {{.Model}}…", tmpl{"Host": host, "Model": model}))
	test := p.test
	p.t.start(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, ollamaTestTimeout)
		defer cancel()
		err := test(ctx, host, model)
		p.t.do(func() {
			p.setBusy(false)
			switch {
			case errors.Is(err, context.DeadlineExceeded):
				p.show(widget.DangerImportance, lang.L("No answer from {{.Host}} within {{.Timeout}}. Is Ollama running there?", tmpl{"Host": host, "Timeout": ollamaTestTimeout.String()}))
			case err != nil:
				p.show(widget.DangerImportance, lang.L("Could not use {{.Model}} at {{.Host}}: {{.Error}}. Check that Ollama runs there and the model is pulled (ollama pull {{.Model}}).",
					tmpl{"Model": model, "Host": host, "Error": strings.TrimSuffix(err.Error(), ".")}))
			default:
				p.show(widget.SuccessImportance, lang.L("Connected: {{.Model}} at {{.Host}} answered.", tmpl{"Model": model, "Host": host}))
			}
		})
	})
}

func (p *ollamaPanel) setBusy(busy bool) {
	p.busy = busy
	if busy {
		p.save.Disable()
		p.check.Disable()
		return
	}
	if p.loaded && p.path != "" {
		p.save.Enable()
	}
	p.check.Enable()
}

func (p *ollamaPanel) show(importance widget.Importance, msg string) {
	p.result.Importance = importance
	p.result.SetText(msg)
	p.result.Show()
}

// configSentence words a config error for the panel: an invalid value keeps the package's
// own explanation (key, value, what is accepted) without the sentinel's prefix.
func configSentence(err error) string {
	if errors.Is(err, config.ErrInvalid) {
		return strings.TrimPrefix(err.Error(), config.ErrInvalid.Error()+": ") + "."
	}
	return strings.TrimSuffix(err.Error(), ".") + "."
}
