package ui

import "github.com/memdesk/memdesk/engine"

// factPageSize is how many facts one List call reads.
const factPageSize = 200

// factPages caches pages of the fact list so a widget.List can scroll 100k rows while only
// the pages on screen are read. When the total is known (from Stats) the list has its full
// length from the start; otherwise it grows a page at a time behind a "loading" row.
type factPages struct {
	size    int
	pages   map[int][]engine.FactView
	loading map[int]bool
	length  int  // rows the list shows
	done    bool // the last page has been read: length is exact
}

// newFactPages starts a cache; total < 0 means unknown.
func newFactPages(size, total int) *factPages {
	p := &factPages{size: size, pages: map[int][]engine.FactView{}, loading: map[int]bool{}}
	if total >= 0 {
		p.length = total
	}
	return p
}

// row returns fact i when its page is loaded.
func (p *factPages) row(i int) (engine.FactView, bool) {
	page, ok := p.pages[i/p.size]
	if !ok || i%p.size >= len(page) {
		return engine.FactView{}, false
	}
	return page[i%p.size], true
}

// page is the page that holds row i.
func (p *factPages) page(i int) int { return i / p.size }

// put stores a page and adjusts the length: a short page ends the list, a full one past the
// current end makes room for one more (the "loading" row that fetches the next page).
func (p *factPages) put(page int, facts []engine.FactView) {
	delete(p.loading, page)
	p.pages[page] = facts
	end := page*p.size + len(facts)
	switch {
	case len(facts) < p.size:
		p.done = true
		p.length = end
	case !p.done && end >= p.length:
		p.length = end + 1
	}
}

// index is the row that holds fact id among the loaded pages, or -1.
func (p *factPages) index(id int64) int {
	for page, facts := range p.pages {
		for i, f := range facts {
			if f.ID == id {
				return page*p.size + i
			}
		}
	}
	return -1
}
