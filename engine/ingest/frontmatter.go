package ingest

import (
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// propertiesHeading is the heading of the chunk that holds a Markdown file's front matter:
// Obsidian's name for it, so a hit there says it is the note's properties, not its prose.
const propertiesHeading = "Properties"

// maxFrontMatterBytes bounds the YAML parsed for fields. Obsidian's properties are a few
// lines; a larger block is kept as text but not read for fields, so a file made to be slow
// to parse cannot hold an import up.
const maxFrontMatterBytes = 64 << 10

// frontMatterSpan finds a front matter block: a "---" line at the very start of text and the
// next "---" (or "...") line that closes it. block is where the Markdown after it starts
// (past the closing line); inner spans the YAML between the fences. ok is false when text
// does not open with one, or when the block holds neither a YAML mapping nor a line that
// starts like one ("key:"): "---\nIntro\n---" is a rule over a setext heading, not
// properties.
func frontMatterSpan(text string) (inner [2]int, block int, ok bool) {
	first, _, found := strings.Cut(text, "\n")
	if !found || strings.TrimRight(first, " \t") != "---" {
		return [2]int{}, 0, false
	}
	start := len(first) + 1
	for pos := start; pos < len(text); {
		next := len(text)
		if i := strings.IndexByte(text[pos:], '\n'); i >= 0 {
			next = pos + i + 1
		}
		if line := strings.TrimRight(text[pos:next], " \t\n"); line == "---" || line == "..." {
			if !looksLikeProperties(text[start:pos]) {
				return [2]int{}, 0, false
			}
			return [2]int{start, pos}, next, true
		}
		pos = next
	}
	return [2]int{}, 0, false
}

// looksLikeProperties tells YAML properties from prose between two rules.
func looksLikeProperties(yamlText string) bool {
	if strings.TrimSpace(yamlText) == "" {
		return true // "---\n---": empty properties, as Obsidian leaves them
	}
	var root yaml.Node
	if len(yamlText) <= maxFrontMatterBytes && yaml.Unmarshal([]byte(yamlText), &root) == nil {
		return len(root.Content) == 0 || root.Content[0].Kind == yaml.MappingNode
	}
	// Broken YAML is still properties when it starts like them: Obsidian shows such a block
	// as properties it cannot read, not as text.
	for _, line := range strings.Split(yamlText, "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			key, _, found := strings.Cut(t, ":")
			return found && key != "" && !strings.ContainsAny(key, " \t")
		}
	}
	return false
}

// frontMatter is what a Markdown file's properties say about it.
type frontMatter struct {
	title   string
	tags    []string
	aliases []string
	dated   time.Time
}

// parseFrontMatter reads the fields memdesk uses from YAML properties. Keys are matched
// without regard to case; a field of an unexpected shape (a mapping where a list belongs)
// is left out rather than failing the file, as Obsidian shows such a property as invalid and
// still opens the note. Broken YAML gives no fields.
func parseFrontMatter(yamlText string) frontMatter {
	var fm frontMatter
	if len(yamlText) > maxFrontMatterBytes {
		return fm
	}
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(yamlText), &root); err != nil || len(root.Content) == 0 {
		return fm
	}
	m := root.Content[0]
	if m.Kind != yaml.MappingNode {
		return fm
	}
	dates := map[string]time.Time{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		switch key := strings.ToLower(strings.TrimSpace(k.Value)); key {
		case "title":
			if v.Kind == yaml.ScalarNode && fm.title == "" {
				fm.title = strings.Join(strings.Fields(v.Value), " ")
			}
		case "tags", "tag":
			fm.tags = appendUnique(fm.tags, listValues(v, " ,")...)
		case "aliases", "alias":
			fm.aliases = appendUnique(fm.aliases, listValues(v, ",")...)
		case "created", "date", "updated", "modified":
			if v.Kind == yaml.ScalarNode {
				if t, ok := parseDate(v.Value); ok {
					dates[key] = t
				}
			}
		}
	}
	var tags []string
	for _, tag := range fm.tags {
		// "#a" and "a" are one tag; "#" alone is none.
		if tag = strings.TrimSpace(strings.TrimPrefix(tag, "#")); tag != "" {
			tags = appendUnique(tags, tag)
		}
	}
	fm.tags = tags
	// The first date found wins: when a note was created or dated says when its text was
	// written better than when it was last touched.
	for _, k := range [...]string{"created", "date", "updated", "modified"} {
		if t, ok := dates[k]; ok {
			fm.dated = t
			break
		}
	}
	return fm
}

// listValues reads a property that is a list: a YAML sequence of scalars, or one scalar
// whose items are separated by any of seps ("tags: a, b" and "tags: a b" are both common).
func listValues(v *yaml.Node, seps string) []string {
	var items []string
	switch v.Kind {
	case yaml.SequenceNode:
		for _, c := range v.Content {
			if c.Kind == yaml.ScalarNode {
				items = append(items, c.Value)
			}
		}
	case yaml.ScalarNode:
		items = strings.FieldsFunc(v.Value, func(r rune) bool { return strings.ContainsRune(seps, r) })
	}
	out := items[:0]
	for _, s := range items {
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// appendUnique appends the items of add that list does not hold yet, in order.
func appendUnique(list []string, add ...string) []string {
	for _, s := range add {
		dup := false
		for _, have := range list {
			if strings.EqualFold(have, s) {
				dup = true
				break
			}
		}
		if !dup {
			list = append(list, s)
		}
	}
	return list
}

// parseDate reads an ISO date or date and time. One without a zone is taken as UTC: the
// file does not say where it was written, and the machine reading it may be elsewhere, so
// the same file gives the same date on every machine.
func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	// The shapes Obsidian, Templater and YAML itself write dates and times in. Fractional
	// seconds parse with every layout that has seconds.
	layouts := [...]string{
		time.RFC3339,
		"2006-01-02T15:04:05",
		"2006-01-02T15:04Z07:00",
		"2006-01-02T15:04",
		"2006-01-02 15:04:05Z07:00",
		"2006-01-02 15:04:05 Z07:00",
		"2006-01-02 15:04:05 -0700",
		"2006-01-02 15:04:05",
		"2006-01-02 15:04",
		"2006-01-02",
	}
	for _, layout := range layouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
