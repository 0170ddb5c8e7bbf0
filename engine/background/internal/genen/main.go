// Command genen writes en-stems.tsv, the English table of package background, from the
// SUBTLEX-US word counts (subtlex-us.tsv.gz beside it; see NOTICE): the counts of the words
// that share a stem summed, with the analyzer the index uses. Run it again whenever the
// analyzer's stemming or folding changes; TestEnglishStemTableIsCurrent says when.
//
//	go run ./engine/background/internal/genen < engine/background/subtlex-us.tsv.gz > engine/background/en-stems.tsv
package main

import (
	"log"
	"os"

	"github.com/memdesk/memdesk/engine/background"
)

func main() {
	if err := background.WriteEnglishStems(os.Stdout, os.Stdin); err != nil {
		log.Fatalf("genen: %v", err)
	}
}
